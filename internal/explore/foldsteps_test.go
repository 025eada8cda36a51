package explore

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// stepAdder returns a function that appends a step to *tr.
func stepAdder(tr *[]engine.Step) func(g *engine.G, k engine.OpKind, pc uintptr) {
	return func(g *engine.G, k engine.OpKind, pc uintptr) {
		*tr = append(*tr, engine.Step{N: len(*tr), G: g, Kind: k, Case: -1, PC: pc})
	}
}

// showLines writes lines of tr's steps as step numbers, and each note as
// (period xrepeats to step).
func showLines(tr []engine.Step, ls []stepLine) string {
	var b strings.Builder
	for _, l := range ls {
		if l.repeats > 0 {
			fmt.Fprintf(&b, "(%d x%d to %d) ", l.period, l.repeats, tr[l.i].N)
			continue
		}
		fmt.Fprintf(&b, "%d ", tr[l.i].N)
	}
	return strings.TrimSpace(b.String())
}

// TestFoldSteps checks that the steps a loop repeats show once, with a
// note, leaving room for the steps before the loop; that short repetitions
// stay as they are; and that the lines shown stay within the cap.
func TestFoldSteps(t *testing.T) {
	g0, g1 := &engine.G{ID: "g0"}, &engine.G{ID: "g0.1"}
	var tr []engine.Step
	add := stepAdder(&tr)
	add(g0, engine.OpStart, 0)
	add(g0, engine.OpLock, 1)
	add(g0, engine.OpUnlock, 2)
	add(g0, engine.OpLock, 1) // two rounds only: not folded
	add(g0, engine.OpUnlock, 2)
	for i := 0; i < 100; i++ { // a loop of three steps, a hundred times
		add(g1, engine.OpRecv, 3)
		add(g1, engine.OpLock, 4)
		add(g1, engine.OpUnlock, 5)
	}
	add(g1, engine.OpRecv, 3) // a round begun
	show := func(ls []stepLine) string { return showLines(tr, ls) }
	if got, want := show(foldSteps(tr, 40)), "0 1 2 3 4 5 6 7 8 (3 x99 to 305)"; got != want {
		t.Errorf("folded: %s, want %s", got, want)
	}
	// A round shows whole, past the cap if need be.
	if got, want := show(foldSteps(tr, 3)), "6 7 8 (3 x99 to 305)"; got != want {
		t.Errorf("folded within 3 lines: %s, want %s", got, want)
	}
	// Fewer than minFolded steps left out: shown as they are.
	short := tr[:5+3*3]
	if got := show(foldSteps(short, 40)); strings.Contains(got, "x") {
		t.Errorf("three rounds of three steps folded: %s", got)
	}
}

// TestFoldStepsLoose checks that goroutines looping on their tickers, in
// an order that varies from round to round (ants' purge and ticktock after
// a lost wakeup, corpus report 37), fold into their first round and a
// note, leaving room for the steps that led to the hang.
func TestFoldStepsLoose(t *testing.T) {
	g0, g1, g2 := &engine.G{ID: "g0"}, &engine.G{ID: "g0.1"}, &engine.G{ID: "g0.2"}
	var tr []engine.Step
	add := stepAdder(&tr)
	for i := 0; i < 10; i++ { // the test's own steps, each once
		add(g0, engine.OpLock, uintptr(100+i))
	}
	tick := func(g *engine.G, pc uintptr) {
		add(nil, engine.OpTimerFire, pc)
		add(g, engine.OpRecv, pc+1)
		add(g, engine.OpLock, pc+2)
		add(g, engine.OpUnlock, pc+3)
	}
	for i := 0; i < 50; i++ { // two tickers, their rounds in varying order
		if i%3 == 0 {
			tick(g2, 20)
			tick(g1, 10)
		} else {
			tick(g1, 10)
			tick(g2, 20)
		}
	}
	ls := foldSteps(tr, 40)
	var notes, shown int
	for _, l := range ls {
		if l.repeats > 0 {
			notes++
			if !l.loose || l.period != 8 || l.repeats != 400-8 || tr[l.i].N != len(tr)-1 {
				t.Errorf("note %+v, want a loose fold of 8 steps, 392 more to step %d", l, len(tr)-1)
			}
			continue
		}
		shown++
	}
	if notes != 1 || shown != 18 || ls[0].i != 0 {
		t.Errorf("%d notes, %d steps shown from step %d; want 1 note and the 10 steps of the test, then a round of 8", notes, shown, ls[0].i)
	}
	// A loop without three rounds is not folded.
	if start, _ := looseLoop(tr[:10+8*2]); start >= 0 {
		t.Errorf("two rounds folded from step %d", start)
	}
}

// TestFoldStepsLongRound: a loop of few distinct steps whose round is
// long (bigcache's cleaner: at each tick, a lock and an unlock of each of
// its 1,024 shards) is not folded loosely into a round shown whole, which
// printed 2,051 lines of a report's steps; the exact folding of the inner
// loop keeps the section within its lines.
func TestFoldStepsLongRound(t *testing.T) {
	g := &engine.G{ID: "g0.1"}
	var tr []engine.Step
	add := stepAdder(&tr)
	for tick := 0; tick < 20; tick++ {
		add(nil, engine.OpTimerFire, 1)
		add(g, engine.OpSelect, 2)
		for shard := 0; shard < 1024; shard++ {
			add(g, engine.OpLock, 3)
			add(g, engine.OpUnlock, 4)
		}
		add(g, engine.OpArrive, 2) // it waits for the next tick
	}
	const max = 40
	ls := foldSteps(tr, max)
	shown := 0
	for _, l := range ls {
		if l.loose {
			t.Errorf("a loose fold of a %d-step round", l.period)
		}
		if l.repeats == 0 {
			shown++
		}
	}
	if shown > max+maxPeriod {
		t.Errorf("%d steps shown, want at most about %d", shown, max)
	}
}

// TestStepsHeaderCountsSteps checks that the steps section counts steps,
// as the report's first line does ("run 1, 60 steps"): a goroutine's exit
// is a line of its own with its last step's number, and the line that ends
// the test has the number of the step that would come next.
func TestStepsHeaderCountsSteps(t *testing.T) {
	gs := []*engine.G{{ID: "g0"}, {ID: "g0.1"}, {ID: "g0.2"}}
	const steps = 60
	var tr []engine.Step
	for n := 0; n < steps; n++ {
		g := gs[n%3]
		tr = append(tr, engine.Step{N: n, G: g, Kind: engine.OpLock, Case: -1})
		if n%10 == 9 {
			tr = append(tr, engine.Step{N: n, G: g, Kind: engine.OpExit, Case: -1})
		}
	}
	tr = append(tr, engine.Step{N: steps, G: gs[0], Kind: engine.OpExit, Case: -1})
	x := &explorer{}
	for _, c := range []struct {
		max  int
		want string
	}{
		{20, fmt.Sprintf("of %d", steps)},
		{0, "steps:"},
	} {
		var b strings.Builder
		x.steps(&b, &engine.Result{Steps: steps, Trace: tr}, c.max, 0)
		header, _, _ := strings.Cut(b.String(), "\n")
		if !strings.Contains(header, c.want) {
			t.Errorf("steps shown within %d lines: header %q, want %q in it", c.max, header, c.want)
		}
	}
}

// TestStepsWhere checks that a report's steps say where each happened or
// what it is: a goroutine back from real I/O, a goroutine's start, an
// operation of heddle's testing code (no call site in the program) in a
// recorded run; and that a run that was not recorded says its steps have
// no file:line.
func TestStepsWhere(t *testing.T) {
	var pcs [1]uintptr
	runtime.Callers(1, pcs[:])
	g0, g1 := &engine.G{ID: "g0"}, &engine.G{ID: "g0.1", Index: 1, GoPC: pcs[0]}
	tr := []engine.Step{
		{N: 0, G: g0, Kind: engine.OpStart, Case: -1},
		{N: 1, G: g1, Kind: engine.OpStart, Case: -1},
		{N: 2, G: g1, Kind: engine.OpLock, Case: -1, PC: pcs[0]},
		{N: 3, G: g1, Kind: engine.OpNative, Case: -1},
		{N: 4, G: g1, Kind: engine.OpClose, Case: -1},
		{N: 4, G: g1, Kind: engine.OpExit, Case: -1},
	}
	res := &engine.Result{Steps: 5, Trace: tr, Detached: []engine.Detached{{G: "g0.1", At: 2, Back: 3, In: "net.(*conn).Read"}}}
	x := &explorer{}
	var b strings.Builder
	x.steps(&b, res, 0, 0)
	for _, want := range []string{
		"g0       start            (the test goroutine begins)",
		"g0.1     start            (created at foldsteps_test.go:",
		"g0.1     lock             foldsteps_test.go:",
		"g0.1     native           back from a wait outside heddle's control in net.(*conn).Read (real I/O, or code that is not rewritten)",
		"g0.1     close            (heddle's testing code, not the program's: running tests and subtests, as package testing does)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("steps:\n%s\nwant a line with %q", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "not recorded") {
		t.Errorf("a recorded run's steps say it was not recorded:\n%s", b.String())
	}

	// Not recorded: no step has a call site.
	tr[2].PC = 0
	b.Reset()
	x.steps(&b, res, 0, 0)
	if !strings.Contains(b.String(), "(this run was not recorded: its steps have no file:line)") {
		t.Errorf("an unrecorded run's steps:\n%s\nwant them to say the run was not recorded", b.String())
	}
	if strings.Contains(b.String(), "heddle's testing code") {
		t.Errorf("an unrecorded run's step without a call site is called heddle's:\n%s", b.String())
	}
}

// TestFoldStepsNested checks that a loop whose round holds a folded inner
// loop (go-metrics' datadog report: statsd's watch loop selects on its
// ticker, then locks and unlocks 32 workers, forever) shows one round, its
// inner loop folded, and one note for the rounds, where it showed each
// round's five lines, from the last tail of steps to the cap.
func TestFoldStepsNested(t *testing.T) {
	g, g3 := &engine.G{ID: "g0.2"}, &engine.G{ID: "g0.3"}
	var tr []engine.Step
	add := stepAdder(&tr)
	add(g3, engine.OpStart, 9)
	const rounds = 40
	for r := 0; r < rounds; r++ {
		add(g, engine.OpSelect, 1)
		for w := 0; w < 32; w++ {
			add(g, engine.OpLock, 2)
			add(g, engine.OpUnlock, 3)
		}
		add(g, engine.OpArrive, 1)
		add(nil, engine.OpTimerFire, 4)
	}
	add(nil, engine.OpTimerFire, 5) // another ticker's: the trace's last step
	got := showLines(tr, foldSteps(tr, 40))
	const round = 1 + 64 + 2
	want := fmt.Sprintf("0 1 2 3 (2 x31 to 65) 66 67 (%d x%d to %d) %d", round, rounds-1, rounds*round, rounds*round+1)
	if got != want {
		t.Errorf("folded: %s\nwant %s", got, want)
	}

	// As the report prints it.
	var x explorer
	var sb strings.Builder
	x.steps(&sb, &engine.Result{Steps: len(tr), Trace: tr}, 40, 0)
	if n := strings.Count(sb.String(), "\n"); n > 12 {
		t.Errorf("%d lines of steps:\n%s", n, sb.String())
	}
	if !strings.Contains(sb.String(), fmt.Sprintf("(the %d steps above repeat %d more times, to step %d)", round, rounds-1, rounds*round)) {
		t.Errorf("steps:\n%s\nwant the rounds' note", sb.String())
	}
}
