// Package schedule reads and writes heddle schedule files.
//
// A schedule is the list of choices made at the scheduling points of one run
// where more than one choice was enabled. With the program it was recorded
// on, it replays the run exactly. The file is plain text:
//
//	heddle-schedule v2
//	test: TestTransfer
//	package: example.com/bank
//	dir: /home/me/bank
//	version: v0.1.0
//	fingerprint: 5f1c…
//	file: bank.go 9a0e…
//	flags: -race
//	kind: deadlock
//	message: all goroutines are blocked
//	where: bank.go:12,bank.go:20
//	steps: 9
//	settings: {"MaxStarve":100000000,"StepLimit":1000000,...}
//	strategy: pct
//	seed: 1
//	run: 17
//	detached: g0.1:9:3:14
//	choices:
//	g0.1
//	g0#2
//	@g0.1/t1
//	@late
//
// A choice names a goroutine by its symbolic id, with #N for case N of a
// select, or a timer by @ and its id; @late is a late wake (format v2). Header keys may come in any order;
// unknown keys are kept, so that newer versions can add some.
//
// where and steps say where the bug happened and at which step of the run,
// so that a replay can tell the same bug from another one; settings are the
// exploration settings the run was made with (step bound, early timer
// firings, bug kinds disabled, ...), which a replay must use too.
package schedule

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Magic is the first line of every schedule file this version writes.
//
// Format v2 added late wakes (the choice "@late": the clock moves on, with
// no timer firing, while a goroutine waits to run), which change the
// scheduling points of any run that reads the clock: a v2 schedule is
// refused by a heddle that reads only v1, with the formats named, and a
// v1 schedule is read and replayed without late wakes.
const Magic = "heddle-schedule " + FormatV2

// The formats this version reads: FormatV1, written before late wakes
// existed, and FormatV2.
const (
	FormatV1 = "v1"
	FormatV2 = "v2"
)

// Schedule is a parsed schedule file.
type Schedule struct {
	// Format is the format of the file read (FormatV1 or FormatV2);
	// Write writes Magic unless it is FormatV1.
	Format      string
	Test        string
	Package     string
	Dir         string
	Version     string
	Fingerprint string
	Files       map[string]string // file name -> content hash
	Flags       []string
	Kind        string
	Message     string
	Where       string // where the bug happened (for a fail, its first message)
	Steps       int    // scheduling steps of the run, up to the bug
	Settings    string // exploration settings of the run, as JSON
	Strategy    string
	Seed        int64
	Run         int
	// Before lists what the exploration's process ran of this test before
	// run Run, besides runs 1 to Run-1 (see explore's warm-up): the
	// first run it made, and the replays it made after some runs (the
	// determinism check, the replays of a report), so that a replay in a
	// new process goes through the same executions first.
	Before string
	// Detached is where the run's goroutines waited in code heddle does
	// not control, which a replay follows (engine.FormatDetached; "none"
	// if none did); a heddle that does not know the key keeps it in
	// Extra and replays without it, as one replays a schedule without it.
	Detached string
	Extra    map[string]string // header keys this version does not know
	Choices  []string
}

// Write writes s in the file format.
func (s *Schedule) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if s.Format == FormatV1 {
		// Rewritten (renumbered, say): still replayed without late wakes.
		fmt.Fprintln(bw, "heddle-schedule "+FormatV1)
	} else {
		fmt.Fprintln(bw, Magic)
	}
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(bw, "%s: %s\n", k, oneLine(v))
		}
	}
	kv("test", s.Test)
	kv("package", s.Package)
	kv("dir", s.Dir)
	kv("version", s.Version)
	kv("fingerprint", s.Fingerprint)
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(bw, "file: %s %s\n", n, s.Files[n])
	}
	if len(s.Flags) > 0 {
		kv("flags", strings.Join(s.Flags, " "))
	}
	kv("kind", s.Kind)
	kv("message", s.Message)
	kv("where", s.Where)
	if s.Steps > 0 {
		kv("steps", strconv.Itoa(s.Steps))
	}
	kv("settings", s.Settings)
	kv("strategy", s.Strategy)
	kv("seed", strconv.FormatInt(s.Seed, 10))
	kv("run", strconv.Itoa(s.Run))
	kv("before", s.Before)
	kv("detached", s.Detached)
	extra := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	for _, k := range extra {
		kv(k, s.Extra[k])
	}
	fmt.Fprintln(bw, "choices:")
	for _, c := range s.Choices {
		fmt.Fprintln(bw, c)
	}
	return bw.Flush()
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\n`, "\n"), `\r`, "\r")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", `\r`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// Parse reads a schedule file. Its errors name the line at fault.
func Parse(r io.Reader) (*Schedule, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return strings.TrimRight(sc.Text(), "\r"), true
	}
	first, ok := next()
	if !ok {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("not a heddle schedule: the file is empty")
	}
	format, ok := strings.CutPrefix(first, "heddle-schedule ")
	if !ok {
		return nil, fmt.Errorf("not a heddle schedule: line 1 is %q, want %q", trunc(first), Magic)
	}
	if format != FormatV1 && format != FormatV2 {
		return nil, fmt.Errorf("schedule format %q is not supported by this heddle (it reads %q and %q)", format, FormatV1, FormatV2)
	}
	s := &Schedule{Format: format, Files: map[string]string{}}
	inChoices := false
	for {
		l, ok := next()
		if !ok {
			break
		}
		if inChoices {
			if l == "" {
				continue
			}
			if err := checkChoice(l); err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			if l == LateWake && format == FormatV1 {
				return nil, fmt.Errorf("line %d: a late wake (%s) in a schedule of format %s, which has none", line, LateWake, FormatV1)
			}
			s.Choices = append(s.Choices, l)
			continue
		}
		if l == "choices:" {
			inChoices = true
			continue
		}
		k, v, ok := strings.Cut(l, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("line %d: want \"key: value\", got %q", line, trunc(l))
		}
		var err error
		switch k {
		case "test":
			s.Test = v
		case "package":
			s.Package = v
		case "dir":
			s.Dir = v
		case "version":
			s.Version = v
		case "fingerprint":
			s.Fingerprint = v
		case "file":
			name, hash, ok := strings.Cut(v, " ")
			if !ok {
				return nil, fmt.Errorf("line %d: want \"file: NAME HASH\", got %q", line, trunc(l))
			}
			s.Files[name] = hash
		case "flags":
			s.Flags = strings.Fields(v)
		case "kind":
			s.Kind = v
		case "message":
			s.Message = unescape(v)
		case "where":
			s.Where = unescape(v)
		case "steps":
			s.Steps, err = strconv.Atoi(v)
		case "settings":
			s.Settings = v
		case "strategy":
			s.Strategy = v
		case "seed":
			s.Seed, err = strconv.ParseInt(v, 10, 64)
		case "run":
			s.Run, err = strconv.Atoi(v)
		case "before":
			s.Before = v
		case "detached":
			s.Detached = v
		default:
			if s.Extra == nil {
				s.Extra = map[string]string{}
			}
			s.Extra[k] = v
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: bad %s: %v", line, k, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !inChoices {
		return nil, fmt.Errorf("schedule has no \"choices:\" section: the file is truncated")
	}
	if s.Test == "" {
		return nil, fmt.Errorf("schedule names no test")
	}
	return s, nil
}

// LateWake is the choice of a late wake (format v2).
const LateWake = "@late"

// checkChoice validates one choice line: g0.1, g0#2, @g0.1/t3, @late or
// g0.1/sb (the commit of a store of g0.1's store buffer, heddle test
// -racy).
func checkChoice(c string) error {
	if g, ok := strings.CutSuffix(c, "/sb"); ok {
		if err := checkGID(g); err != nil {
			return fmt.Errorf("bad store-buffer choice %q: %v", trunc(c), err)
		}
		return nil
	}
	if c == LateWake {
		return nil
	}
	if strings.HasPrefix(c, "@") {
		g, t, ok := strings.Cut(c[1:], "/t")
		if !ok || checkGID(g) != nil || !isNum(t) {
			return fmt.Errorf("bad timer choice %q", trunc(c))
		}
		return nil
	}
	g, cs, hasCase := strings.Cut(c, "#")
	if err := checkGID(g); err != nil {
		return fmt.Errorf("bad choice %q: %v", trunc(c), err)
	}
	if hasCase && !isNum(cs) {
		return fmt.Errorf("bad select case in choice %q", trunc(c))
	}
	return nil
}

func checkGID(g string) error {
	if !strings.HasPrefix(g, "g") {
		return fmt.Errorf("goroutine id must start with g")
	}
	for _, part := range strings.Split(g[1:], ".") {
		if !isNum(part) {
			return fmt.Errorf("goroutine id %q is not g followed by dotted numbers", g)
		}
	}
	return nil
}

func isNum(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
