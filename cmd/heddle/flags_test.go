package main

import (
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/explore"
)

func TestParseTestFlags(t *testing.T) {
	f, pkgs, err := parseTestFlags([]string{"./a/...", "-run", "X", "./b", "-budget=10s", "-race", "-leaks=false", "-keep-going"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"./a/...", "./b"}; !reflect.DeepEqual(pkgs, want) {
		t.Errorf("packages = %q, want %q", pkgs, want)
	}
	if f.run != "X" || !f.race || f.leaks || !f.keepGoing {
		t.Errorf("flags = %+v", f)
	}
	if f.budget.Time != 10*time.Second || f.budget.Runs != 0 {
		t.Errorf("budget = %+v, want 10s", f.budget)
	}
	if f.timeout != 0 {
		t.Errorf("timeout with a time budget = %v, want none", f.timeout)
	}

	f, pkgs, err = parseTestFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 0 || f.budget.Runs != 1000 || f.strategy != "portfolio" || !f.leaks || f.timeout != 10*time.Minute {
		t.Errorf("defaults = %+v, packages %q", f, pkgs)
	}

	f, _, err = parseTestFlags([]string{"-budget", "5s", "-timeout", "1m"}, io.Discard)
	if err != nil || f.timeout != time.Minute {
		t.Errorf("an explicit -timeout with a time budget = %v, %v", f.timeout, err)
	}
}

func TestParseTestFlagsErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-cover"},
		{"./...", "-coverprofile", "c.out"},
		{"-budget", "0"},
		{"-budget", "-3s"},
		{"-budget", "many"},
		{"-step-limit", "0"},
		{"-strategy", "replay"},
		{"-strategy", "clever"},
		{"-nosuchflag"},
	} {
		if _, _, err := parseTestFlags(args, io.Discard); err == nil {
			t.Errorf("parseTestFlags(%q) succeeded", args)
		}
	}
	_, _, err := parseTestFlags([]string{"-cover"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "golang/go#73802") {
		t.Errorf("-cover error = %v", err)
	}
}

func TestParseBudget(t *testing.T) {
	for s, want := range map[string]budget{
		"1000":  {Runs: 1000, Text: "1000"},
		"1":     {Runs: 1, Text: "1"},
		"10s":   {Time: 10 * time.Second, Text: "10s"},
		"1m30s": {Time: 90 * time.Second, Text: "1m30s"},
	} {
		got, err := parseBudget(s)
		if err != nil || got != want {
			t.Errorf("parseBudget(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
}

func TestTestRunPattern(t *testing.T) {
	for name, match := range map[string][]string{
		"TestA":        {"TestA"},
		"TestA/sub(1)": {"TestA/sub(1)"},
		"Test.x+":      {"Test.x+"},
	} {
		pat := testRunPattern(name)
		for i, part := range strings.Split(pat, "/") {
			re := regexp.MustCompile(part)
			elem := strings.Split(match[0], "/")[i]
			if !re.MatchString(elem) {
				t.Errorf("pattern %q does not match %q", pat, elem)
			}
			if re.MatchString(elem + "2") {
				t.Errorf("pattern %q matches %q", pat, elem+"2")
			}
		}
	}
	if got := testRunPattern("Test.x+"); got != `^Test\.x\+$` {
		t.Errorf("testRunPattern = %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/a.sched":      "/tmp/a.sched",
		"/tmp/my dir/a":     "'/tmp/my dir/a'",
		"it's":              `'it'\''s'`,
		"-test.run=^TestA$": "'-test.run=^TestA$'",
		"":                  "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// The default budget of 1000 runs is bounded in time
// (explore.DefaultRunsCap); a budget the user gives, in runs or time, or
// -budget-total, is not.
func TestDefaultBudgetBounded(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, explore.DefaultRunsCap},
		{[]string{"-budget", "1000"}, 0},
		{[]string{"-budget", "10s"}, 0},
		{[]string{"-budget-total", "1m"}, 0},
	} {
		f, _, err := parseTestFlags(c.args, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		cfg := exploreConfig(f, t.TempDir(), &build.Program{}, &build.Package{})
		if cfg.RunsCap != c.want {
			t.Errorf("%q: RunsCap %v, want %v", c.args, cfg.RunsCap, c.want)
		}
	}
}
