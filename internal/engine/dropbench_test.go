package engine

import "testing"

// BenchmarkDropSpinnersAnts measures dropSpinners on the shape of the
// points of ants' pool tests (TestAntsPoolGetWorkerFromCache, counted
// under heddle: 535 choices a point on average, 505 goroutines' and 30
// sleepers due together, 180 Gosched spinners dropped, in short runs
// among the others). Its instruction count is repeatable under load:
//
//	go test -c -o /tmp/engine.test ./internal/engine
//	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//	  /tmp/engine.test -test.run '^$' -test.bench DropSpinnersAnts -test.benchtime 2000x
//
// (callgrind stops at the first asynchronous preemption signal without
// GODEBUG=asyncpreemptoff=1.)
func BenchmarkDropSpinnersAnts(b *testing.B) {
	const n, runs, perRun, tail = 505, 27, 7, 30
	gs := make([]G, n+tail)
	var cs []Choice
	spinners := 0
	for i := 0; i < n; i++ {
		g := &gs[i]
		if i%(n/runs) < perRun {
			spinners++
			g.spins = spinDrop
			g.op.Kind = OpYield
		}
		cs = append(cs, Choice{G: g, Case: -1})
		cs[len(cs)-1].spin = spinClass(g, false)
	}
	for i := n; i < n+tail; i++ {
		cs = append(cs, Choice{G: &gs[i], Case: -1, Early: 1})
	}
	e := &Exec{maySpin: true}
	e.choices = cs
	e.dropSpinners()
	if len(e.choices) != n+tail-spinners {
		b.Fatalf("kept %d choices, want %d", len(e.choices), n+tail-spinners)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.choices, e.overdue = cs, false
		e.dropSpinners()
	}
}
