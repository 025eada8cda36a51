package strategy_test

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"heddle.dev/internal/strategy"
)

// deepSDPORUnit is a source-DPOR unit whose path is depth nodes deep,
// each node with its choice taken done, and with floor floor owning
// choice own.
func deepSDPORUnit(depth, floor int, own string) strategy.Unit {
	f := &strategy.Fragment{Floor: floor, Nodes: make([]strategy.FragNode, depth)}
	for i := range f.Nodes {
		k := fmt.Sprintf("g0.1.%d send grpc3017.go:%d", i%3, 40+i%50)
		f.Nodes[i] = strategy.FragNode{Taken: k, Done: []string{k}, BT: []string{k}}
	}
	if own != "" {
		f.Own = []string{own}
	}
	return strategy.Unit{Strategy: "sdpor", Frag: f}
}

// TestFrontierLinearInDepth: the coordinator's frontier records a unit
// in memory linear in its depth. It keyed each node by the choices taken
// on the whole path down to it, quadratic in the depth: on GoKer's
// Grpc3017 (runs 30,000 nodes deep) the heddle command ran out of memory
// at 4.6 GB in Frontier.Record.
func TestFrontierLinearInDepth(t *testing.T) {
	const depth = 2000
	u := deepSDPORUnit(depth, depth-1, "")
	spawned := deepSDPORUnit(depth, depth-1, "g0.1.9 recv grpc3017.go:120")
	fr := strategy.NewFrontier()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fr.Record(u)
	if _, ok := fr.Claim(spawned); !ok {
		t.Fatal("a spawned unit's choice not recorded yet was refused")
	}
	runtime.ReadMemStats(&after)
	// 300 bytes a node: a prefix-tree node and its claimed and taken
	// slices (about 100). The keys of whole paths took 240 MB here.
	got, want := after.TotalAlloc-before.TotalAlloc, uint64(depth*300)
	t.Logf("recording a unit %d nodes deep allocated %d bytes", depth, got)
	if got > want {
		t.Errorf("recording a unit %d nodes deep allocated %d bytes, want at most %d (%d a node)", depth, got, want, want/depth)
	}
}

// TestFrontierClaims: a spawned unit's choice is claimed once per node
// (a path of choices taken from the root), with the choices taken there
// before it asleep.
func TestFrontierClaims(t *testing.T) {
	fr := strategy.NewFrontier()
	fr.Record(deepSDPORUnit(10, 0, ""))
	s := deepSDPORUnit(6, 5, "x")
	c, ok := fr.Claim(s)
	if !ok {
		t.Fatal("first claim of x at depth 5 refused")
	}
	if got := c.Frag.Nodes[5].Done; len(got) != 2 || got[0] != s.Frag.Nodes[5].Taken || got[1] != "x" {
		t.Errorf("claimed unit's node sleeps %q, want the choice done there and x", got)
	}
	if _, ok := fr.Claim(deepSDPORUnit(6, 5, "x")); ok {
		t.Error("second claim of x at the same node accepted")
	}
	// The same depth on another path: another node.
	o := deepSDPORUnit(6, 5, "x")
	o.Frag.Nodes[2].Taken = "other"
	if _, ok := fr.Claim(o); !ok {
		t.Error("claim of x at a node on another path refused")
	}
	// A choice recorded as owned (BT below the floor) is claimed.
	if _, ok := fr.Claim(deepSDPORUnit(9, 8, deepSDPORUnit(10, 0, "").Frag.Nodes[8].Taken)); ok {
		t.Error("claim of a choice a recorded unit owns accepted")
	}
}

// TestAllChildRunsIsChildRuns: the estimates of the runs below every node
// of a DFS fragment, made from the deepest node up, are childRuns' at
// each node, and a fragment 100,000 nodes deep is estimated in linear
// time (childRuns at each node was quadratic: a minute of the
// coordinator's between two units of GoKer's Grpc3017 under IDB).
func TestAllChildRunsIsChildRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		f := &strategy.Fragment{Nodes: make([]strategy.FragNode, 1+rng.Intn(60))}
		for k := range f.Nodes {
			n := &f.Nodes[k]
			n.Order = make([]int, rng.Intn(4)) // 0: a node with no order
			switch rng.Intn(5) {
			case 0:
				n.Avg = 1 + rng.Intn(1000)
			case 1:
				n.Est = 1 + rng.Intn(1000)
			}
			if rng.Intn(20) == 0 {
				n.Order = make([]int, 1000) // saturates
			}
		}
		all := strategy.AllChildRuns(f)
		for k := range f.Nodes {
			if want := strategy.ChildRuns(f, k); all[k] != want {
				t.Fatalf("fragment %d, node %d of %d: %d runs below, want %d", i, k, len(f.Nodes), all[k], want)
			}
		}
	}
	deep := &strategy.Fragment{Nodes: make([]strategy.FragNode, 100000)}
	for k := range deep.Nodes {
		deep.Nodes[k].Order = []int{0, 1}
	}
	runs, _ := strategy.Below(deep)
	if runs[0] != strategy.MaxEst {
		t.Errorf("runs below the root of a binary tree 100,000 deep: %d, want the cap %d", runs[0], strategy.MaxEst)
	}
}
