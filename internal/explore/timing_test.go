package explore

import (
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
)

var engineBugForTest = engine.Bug{Kind: engine.KindFail, Message: "x_test.go:3: failed"}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestIsTestFunc(t *testing.T) {
	for name, want := range map[string]bool{
		"TestFoo": true, "Test": true, "Test_x": true, "ExampleBar": true, "FuzzX": true, "BenchmarkY": true,
		"Testify": false, "helper": false, "waitFor": false, "Examples": false,
	} {
		if got := isTestFunc(name); got != want {
			t.Errorf("isTestFunc(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestStarvedText(t *testing.T) {
	if s := starvedText(1); s != "before the goroutines that could run took their next step" {
		t.Errorf("1ns: %q", s)
	}
	if s := starvedText(10 * time.Millisecond); s != "while a goroutine that could run had waited 10ms" {
		t.Errorf("10ms: %q", s)
	}
	if m := timingMessage([]earlyFiring{{early: 1, test: true}}, &engineBugForTest); !contains(m, "always run before a timer fires") || contains(m, "1ns") {
		t.Errorf("timing message for no starvation: %q", m)
	}
}

// TestTimingMessageD: the duration a timing verdict says the test assumes
// comes from the timers that fired early; a late wake's is heddle's own
// step (-max-starve), which the message names as such. A verdict that
// needed only late wakes said "the machine is never slower than 100ms" of
// a test that allows 10ms (eapache/go-resiliency's batcher test).
func TestTimingMessageD(t *testing.T) {
	late := earlyFiring{late: true, early: 100 * time.Millisecond}
	timer := earlyFiring{test: true, early: 10 * time.Millisecond}
	m := timingMessage([]earlyFiring{timer, late}, &engineBugForTest)
	if !contains(m, "never slower than 10ms") || contains(m, "never slower than 100ms") || !contains(m, "never waits 100ms to run (heddle's late-wake step, -max-starve") {
		t.Errorf("timer and late wake: %q", m)
	}
	m = timingMessage([]earlyFiring{late}, &engineBugForTest)
	if contains(m, "never slower") || contains(m, "a timer fires") || !contains(m, "never waits 100ms to run") || !contains(m, "runs late") {
		t.Errorf("late wake only: %q", m)
	}
}

func TestInTestOnly(t *testing.T) {
	defer setTestOnly(nil, "", "")
	setTestOnly([]string{"github.com/stretchr/testify/assert", "gopkg.in/yaml.v3", "example.com/m/internal/waitfor"}, "", "")
	for fn, want := range map[string]bool{
		"github.com/stretchr/testify/assert.Eventually":       true,
		"github.com/stretchr/testify/assert.Eventually.func1": true,
		"gopkg.in/yaml.v3.(*decoder).unmarshal":               true,
		"example.com/m/internal/waitfor.Wait":                 true,
		"github.com/stretchr/testify/require.Eventually":      false,
		"example.com/m.(*Worker).Start":                       false,
		"example.com/m/internal/waitforever.Wait":             false,
		"": false,
	} {
		if got := inTestOnly(fn); got != want {
			t.Errorf("inTestOnly(%q) = %v, want %v", fn, got, want)
		}
	}
}

// A test-only package of the module of the package under test is found by
// its directory too: the package's import path and directory end alike
// (the module's root may be named otherwise).
func TestInTestOnlyDir(t *testing.T) {
	defer setTestOnly(nil, "", "")
	setTestOnly([]string{"github.com/stretchr/testify/assert", "example.com/mod/internal/testutil", "example.com/other/util"},
		"example.com/mod/test", "/src/checkout/test")
	for file, want := range map[string]bool{
		"/src/checkout/internal/testutil/util.go":   true,
		"/src/checkout/internal/testutil/x/util.go": false,
		"/src/checkout/test/retry.go":               false,
		"/src/checkout/internal/util.go":            false,
		"/src/checkout/assert/assertions.go":        false,
		"/src/other/util/util.go":                   false,
		"":                                          false,
	} {
		if got := inTestOnlyDir(file); got != want {
			t.Errorf("inTestOnlyDir(%q) = %v, want %v", file, got, want)
		}
	}
}

func TestTimingAllowances(t *testing.T) {
	// The replays that decide a timing verdict have their own time: not
	// what is left of a 1 s budget (go-quartz's run of 0.87 s, whose
	// recorded replay took 4 to 9 s, was cut at five times the run).
	if d := reportAllowance(870 * time.Millisecond); d < 30*time.Second || d > 2*time.Minute {
		t.Errorf("reportAllowance(870ms) = %v", d)
	}
	if d := reportAllowance(time.Millisecond); d != 10*time.Second {
		t.Errorf("reportAllowance(1ms) = %v, want the 10s floor", d)
	}
	if d := reportAllowance(time.Hour); d != 2*time.Minute {
		t.Errorf("reportAllowance(1h) = %v, want the 2m bound", d)
	}
	// A replay of 100,000 steps at the pace of a recorded replay of 118
	// steps in 1 ms: 0.85 s, three times that is under the floor.
	if d := timingAllowance(time.Millisecond, 118, avoidSteps(118, false)); d != 10*time.Second {
		t.Errorf("timingAllowance(1ms for 118 steps) = %v", d)
	}
	if d := timingAllowance(20*time.Second, 168759, avoidSteps(168759, false)); d != time.Minute {
		t.Errorf("timingAllowance(20s for 168759 steps) = %v", d)
	}
	if n := avoidSteps(118, false); n < 60000 {
		t.Errorf("avoidSteps(118, false) = %d: x/sync's group needs some 60,000 steps without early firings", n)
	}
}

func TestAvoidTarget(t *testing.T) {
	g := &engine.G{ID: "g0.7"}
	for kind, want := range map[string]string{
		engine.KindPanic: "g0.7", engine.KindMisuse: "g0.7",
		engine.KindFail: "", engine.KindDeadlock: "", engine.KindLeak: "",
	} {
		if got := avoidTarget(kind, g); got != want {
			t.Errorf("avoidTarget(%s) = %q, want %q", kind, got, want)
		}
	}
	if got := avoidTarget(engine.KindPanic, nil); got != "" {
		t.Errorf("avoidTarget(panic, nil) = %q", got)
	}
	if avoidRecord("all", engine.KindDeadlock) != true || avoidRecord("test", engine.KindFail) != true || avoidRecord("all", engine.KindPanic) != false {
		t.Error("avoidRecord: a replay that needs positions must record them")
	}
}

func TestRecheckAfterTiming(t *testing.T) {
	x := &explorer{seen: map[string]bool{}}
	const key = "deadlock m_test.go:12"
	if x.mayRecheck(key) || x.recheck(key) {
		t.Fatal("a place without a timing verdict is not checked again")
	}
	x.timingAt(key)
	for i := 0; i < maxRechecks; i++ {
		if !x.recheck(key) {
			t.Fatalf("recheck %d refused", i+1)
		}
	}
	if x.recheck(key) {
		t.Errorf("more than %d rechecks", maxRechecks)
	}
	x.timingAt(key) // a later timing verdict there does not start over
	if x.mayRecheck(key) {
		t.Error("rechecks started over")
	}
}

// A leak's replay without early firings shows it when the same goroutines
// leak, wherever each was at the end (go-metrics' datadog TestParseKey: a
// sender blocked in the recorded run runs in the replay), and not when one
// of them ended (the TimeoutLeak shape: the worker's send is received).
func TestAvoidSameLeak(t *testing.T) {
	for _, c := range []struct {
		kind, got, recorded string
		want                bool
	}{
		{engine.KindLeak, "leaked g0.1 g0.2 g0.3", "leaked g0.1 g0.2 g0.3", true},
		{engine.KindLeak, "leaked g0.1 g0.2 g0.3 g0.4", "leaked g0.2 g0.3", true},
		{engine.KindLeak, "leaked g0.1", "leaked g0.1 g0.2", false},
		{engine.KindLeak, "leaked g0.10", "leaked g0.1", false},
		{engine.KindDeadlock, "m.go:3", "m.go:3", true},
		{engine.KindDeadlock, "m.go:3", "m.go:4", false},
	} {
		if got := avoidSame(c.kind, c.got, c.recorded); got != c.want {
			t.Errorf("avoidSame(%s, %q, %q) = %v, want %v", c.kind, c.got, c.recorded, got, c.want)
		}
	}
}

// A leak's goroutines that leak only with early firings are those the
// replay without any did not leak, when it leaked some of the others
// (suture's TestRemoveAndWait); none when it leaked none of them.
func TestLeakedAlone(t *testing.T) {
	for _, c := range []struct {
		got, recorded string
		want          string
	}{
		{"leaked g0.1.3 g0.1.4.1", "leaked g0.1.3 g0.1.4 g0.1.4.1", "g0.1.4"},
		{"leaked g0.1", "leaked g0.1", ""},
		{"leaked g0.5", "leaked g0.1 g0.2", ""},
		{"", "leaked g0.1 g0.2", ""},
		{"m.go:3", "m.go:3", ""},
	} {
		if got := strings.Join(leakedAlone(c.got, c.recorded), " "); got != c.want {
			t.Errorf("leakedAlone(%q, %q) = %q, want %q", c.got, c.recorded, got, c.want)
		}
	}
}

// TestSlowEarly: a firing that starved the goroutines that could run
// under engine.SameInstant (the 1ns mark of one that starved no one yet,
// a clock read's 20ns) is no timing assumption; from a microsecond on it
// is one.
func TestSlowEarly(t *testing.T) {
	for _, c := range []struct {
		early time.Duration
		want  bool
	}{
		{0, false},
		{1, false},
		{engine.ReadTime, false},
		{2 * engine.ReadTime, false},
		{engine.SameInstant - 1, false},
		{engine.SameInstant, true},
		{100 * time.Millisecond, true},
	} {
		if got := slowEarly(c.early); got != c.want {
			t.Errorf("slowEarly(%v) = %v, want %v", c.early, got, c.want)
		}
	}
}
