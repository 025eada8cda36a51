package conform

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"heddle.dev/internal/event"
)

const sample = `package prog

import "testing"

func TestA(t *testing.T) {
	c := make(chan int)
	go func() { c <- 1 }()
	select {
	case v := <-c:
		if v > 0 {
			t.Error("got")
		}
	default:
	}
	switch {
	case true:
		fallthrough
	default:
	}
}
`

func lines(b []byte) int { return bytes.Count(b, []byte("\n")) }

func TestInjectNoise(t *testing.T) {
	out, err := InjectNoise("a_test.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if lines(out) != lines([]byte(sample)) {
		t.Fatalf("noise changed the number of lines:\n%s", out)
	}
	src := string(out)
	for _, want := range []string{
		"\t" + NoiseCall + "c := make(chan int)",
		"go func() { " + NoiseCall + "c <- 1 }()",
		"\t\t" + NoiseCall + "if v > 0 {",
		"\t\t\t" + NoiseCall + "t.Error(\"got\")",
		"\t\t" + NoiseCall + "fallthrough",
		"\t" + NoiseCall + "select {",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("noise: no %q in\n%s", want, src)
		}
	}
	if strings.Contains(src, NoiseCall+"case") || strings.Contains(src, NoiseCall+"default") {
		t.Errorf("noise before a clause:\n%s", src)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "a_test.go", out, 0); err != nil {
		t.Fatal(err)
	}
}

func TestInsertMarks(t *testing.T) {
	out, err := InsertMarks("a_test.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if lines(out) != lines([]byte(sample)) {
		t.Fatalf("marks changed the number of lines:\n%s", out)
	}
	if !strings.Contains(string(out), "func TestA(t *testing.T) {conformRun(t, func() {\n") || !strings.HasSuffix(string(out), "\n})}\n") {
		t.Errorf("marks:\n%s", out)
	}
}

func TestParseFile(t *testing.T) {
	src := strings.Replace(sample, "func TestA", "// TestA does things.\n//\n// conform: racy\nfunc TestA", 1)
	f, err := ParseFile("a_test.go", []byte(src), "hand")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Programs) != 1 {
		t.Fatalf("%d programs", len(f.Programs))
	}
	p := f.Programs[0]
	if p.Name != "TestA" || !p.HasTag("racy") || !p.HasTag("hand") || p.Timers || p.Doc != "TestA does things." {
		t.Errorf("program %+v", p)
	}
	if _, err := ParseFile("b_test.go", []byte("package prog\nfunc TestB(*testing.T) {}\n")); err == nil {
		t.Error("a program without a named *testing.T was accepted")
	}
}

func TestHeddleOutcome(t *testing.T) {
	for _, c := range []struct {
		e    event.Event
		want string
	}{
		{event.Event{Kind: "fail", Message: "a_test.go:3: x=1"}, "fail: a_test.go:3: x=1"},
		{event.Event{Kind: "misuse", Message: "close of closed channel"}, "panic: close of closed channel"},
		{event.Event{Kind: "misuse", Message: "concurrent map writes: g0.2 was writing the map"}, "panic: concurrent map writes"},
		{event.Event{Kind: "misuse", Message: "concurrent map read and map write: g0.1 was writing the map"}, "panic: concurrent map read and map write"},
		{event.Event{Kind: "panic", Test: "TestX", Message: "Log in goroutine after TestX has completed"}, "panic: Log in goroutine after TEST has completed"},
		{event.Event{Kind: "panic", Message: "first\n\tpanic: second"}, "panic: first"},
		{event.Event{Kind: "deadlock", Message: "all goroutines are blocked"}, Deadlock},
		{event.Event{Kind: "leak", Report: "goroutines:\n  g0.2  created at a.go:4 in p.F; blocked forever: send on channel at a_test.go:9 in p.F.1\n  g0.1  created at a.go:3 in p.F; blocked forever: Lock at a_test.go:5 in p.F.2\n"}, "leak: a_test.go:5,a_test.go:9"},
		{event.Event{Kind: "timing", Message: "the test assumes the machine is never slower than 1ms: it fails only when ...\n  the failure: fail: timers_test.go:66: 2 1"}, "fail: timers_test.go:66: 2 1"},
		{event.Event{Kind: "steplimit"}, ""},
		{event.Event{Kind: "misuse", Message: "fatal error: sync: unlock of unlocked mutex"}, "panic: sync: unlock of unlocked mutex"},
		{event.Event{Kind: "misuse", Message: "fatal error: sync: unlock of unlocked mutex (sync.Cond.Wait without holding c.L)"}, "panic: sync: unlock of unlocked mutex"},
		{event.Event{Kind: "misuse", Message: "sync: WaitGroup is reused before previous Wait has returned (Add from zero while g0.1 has not returned from Wait)"}, "panic: sync: WaitGroup is reused before previous Wait has returned"},
		{event.Event{Kind: "fail", Message: "test executed panic(nil) or runtime.Goexit (in g0)"}, "panic: test executed panic(nil) or runtime.Goexit"},
	} {
		if got := HeddleOutcome(c.e); got != c.want {
			t.Errorf("HeddleOutcome(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}

func TestNativeOutcome(t *testing.T) {
	if got := runOutcome(true, "a_test.go:3: x", "a_test.go:9"); got != "fail: a_test.go:3: x" {
		t.Errorf("failure and leak: %q", got)
	}
	if got := runOutcome(false, "", "a_test.go:9"); got != "leak: a_test.go:9" {
		t.Errorf("leak: %q", got)
	}
	if got := runOutcome(false, "", ""); got != Pass {
		t.Errorf("pass: %q", got)
	}
	if got := runOutcome(false, "a_test.go:3: x", ""); got != Pass {
		t.Errorf("a run that logged and passed: %q", got)
	}
	if got := normPanic("boom [recovered, repanicked]"); got != "boom" {
		t.Errorf("normPanic: %q", got)
	}
	if got := normPanic("Fail in goroutine after TestConformNative/r#12 has completed"); got != "Fail in goroutine after TEST has completed" {
		t.Errorf("normPanic: %q", got)
	}
	h := &HeddleRun{Outcomes: map[string]bool{"leak: a.go:1": true}}
	if !h.Reached(Hang) || h.Reached(Pass) {
		t.Error("Reached: a hang is a leak or a deadlock for heddle, and nothing else")
	}
}

func TestGenerate(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		f, err := Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.Src, g.Src) {
			t.Fatalf("seed %d: two different programs", seed)
		}
		if p := f.Programs[0]; len(f.Programs) != 1 || !p.HasTag("generated") || p.HasTag("racy") != (seed%4 == 0) {
			t.Fatalf("seed %d: programs %+v", seed, f.Programs)
		}
	}
}

func TestGenerateRacy(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		f, err := GenerateRacy(seed)
		if err != nil {
			t.Fatal(err)
		}
		g, err := GenerateRacy(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.Src, g.Src) {
			t.Fatalf("seed %d: two different programs", seed)
		}
		p := f.Programs[0]
		if len(f.Programs) != 1 || !p.HasTag("generated") || !p.HasTag("racy") || p.Name != fmt.Sprintf("TestRacy%04d", seed) {
			t.Fatalf("seed %d: programs %+v", seed, f.Programs)
		}
		// Every racy access has a conflicting one in another goroutine.
		if n := bytes.Count(f.Src, []byte("go func() {")); n < 2 {
			t.Fatalf("seed %d: %d goroutines", seed, n)
		}
		if !bytes.Contains(f.Src, []byte("z := 0")) && !bytes.Contains(f.Src, []byte("d, f := 0, 0")) {
			t.Fatalf("seed %d: no shared variable:\n%s", seed, f.Src)
		}
	}
}

func TestHandCorpus(t *testing.T) {
	c, err := Hand()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range c.Programs() {
		if seen[p.Name] {
			t.Errorf("two programs named %s", p.Name)
		}
		seen[p.Name] = true
	}
	if len(seen) < 25 {
		t.Errorf("%d hand-written programs", len(seen))
	}
	full, err := Full(10, 17)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range knownGaps {
		if full.Lookup(g.program) == nil {
			t.Errorf("known gap %s: no such program", g.program)
		}
	}
	for _, n := range subsetPrograms {
		if full.Lookup(n) == nil {
			t.Errorf("subset program %s: no such program", n)
		}
	}
}

func TestMarkLogs(t *testing.T) {
	src := `package prog

import "testing"

func TestA(t *testing.T) {
	t.Log("a", 1)
	t.Logf("b %d", 2)
	t.Run("sub", func(st *testing.T) { st.Skipf("c %d", 3) })
	args := []any{"d"}
	t.Log(args...)
	t.Error("e")
	t.Skip()
}
`
	out, err := MarkLogs("a_test.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if lines(out) != lines([]byte(src)) {
		t.Fatalf("marking changed the number of lines:\n%s", out)
	}
	for _, want := range []string{
		`conformLog(t, "a", 1)`,
		`conformLogf(t, "b %d", 2)`,
		`conformSkipf(st, "c %d", 3)`,
		`conformLog(t, args...)`,
		`t.Error("e")`,
		`conformSkip(t, )`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestNativeOutputLines: the native side reads a failing run's first
// failing line as heddle writes it: lines of t.Log and t.Skip (marked)
// are not failures, a subtest's line carries its name after the
// position, a message's second line is no line of its own.
func TestNativeOutputLines(t *testing.T) {
	out := strings.Join([]string{
		"CONFORM-RUN 3",
		"=== RUN   TestConformNative/r#02",
		"    a_test.go:5: " + LogMark + " log a",
		"=== RUN   TestConformNative/r#02/group",
		"=== RUN   TestConformNative/r#02/group/b",
		"=== PAUSE TestConformNative/r#02/group/b",
		"=== CONT  TestConformNative/r#02/group/b",
		"    a_test.go:9: failed b",
		"                second line of b",
		"=== NAME  TestConformNative/r#02",
		"    a_test.go:12: in parent",
		"CONFORM-FAILED 3",
		"CONFORM-END 3 ",
		"CONFORM-RUN 4",
		"=== RUN   TestConformNative/r#03",
		"    a_test.go:5: " + LogMark + " log a",
		"    a_test.go:7: " + LogMark + " skipped",
		"CONFORM-END 4 ",
		"CONFORM-RUN 5",
		"=== RUN   TestConformNative/r#04",
		"=== RUN   TestConformNative/r#04/sub",
		"=== NAME  TestConformNative/r#04",
		"    a_test.go:12: in parent",
		"CONFORM-FAILED 5",
		"CONFORM-END 5 ",
		"CONFORM-STOP 5",
	}, "\n")
	got := readRuns(t, out)
	want := Outcomes{"fail: a_test.go:9: group/b: failed b": 1, Pass: 1, "fail: a_test.go:12: in parent": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if got := HeddleOutcome(event.Event{Kind: "fail", Message: "a_test.go:9: group/b: failed b\nsecond line of b"}); got != "fail: a_test.go:9: group/b: failed b" {
		t.Errorf("heddle's multi-line message: %q", got)
	}
}

// readRuns parses a native process's output.
func readRuns(t *testing.T, out string) Outcomes {
	t.Helper()
	r := &NativeRun{Outcomes: Outcomes{}}
	p := &runParser{r: r}
	for _, l := range strings.Split(out, "\n") {
		if err := p.line(l); err != nil {
			t.Fatal(err)
		}
	}
	return r.Outcomes
}
