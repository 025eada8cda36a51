package rt

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestSyncMapWalkListsOnWrite: a Range lists the map's keys at its start
// and again only at a step after a write of the map. It listed them at
// each of its steps, n+2 times for n keys: x/sync syncmap
// TestConcurrentRange's Range of 1024 keys was quadratic (24.5x native a
// run, 3.8x before Range noticed new keys).
//
// Eight keys: DFS explores every interleaving of the writer's steps with
// the Range's, which the spin heuristic no longer cuts after three entry
// steps (Exec.AccessWalk); at forty keys that is beyond 20,000 runs.
func TestSyncMapWalkListsOnWrite(t *testing.T) {
	const n = 8
	for _, writes := range []int{0, 1, 2} {
		dfs := strategy.NewDFS(0)
		runs, most := 0, 0
		for run := 1; dfs.Begin(run); run++ {
			if run > 20000 {
				t.Fatalf("%d writes: DFS did not finish within 20000 runs", writes)
			}
			lists, visited := 0, 0
			res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, dfs, func() {
				var m sync.Map
				for k := 0; k < n; k++ {
					SyncMapW(&m).Store(k, k)
				}
				done := MakeChan[chan bool](0)
				Go(func() {
					for w := 0; w < writes; w++ {
						SyncMapW(&m).Store(n+w, 0) // a new key
					}
					Close(done)
				})
				lists = syncMapWalk(engine.Current(), &m, func(k, v any) bool {
					visited++
					return true
				})
				Recv(done)
			})
			dfs.End(res)
			if res.Bug != nil || res.Internal != "" {
				t.Fatalf("%d writes, run %d: bug %v, internal %q", writes, run, res.Bug, res.Internal)
			}
			if visited < n || visited > n+writes {
				t.Fatalf("%d writes, run %d: visited %d keys, want %d to %d", writes, run, visited, n, n+writes)
			}
			if lists > most {
				most = lists
			}
			runs++
		}
		// The start's listing, and one per step that follows a write.
		if most > 1+writes {
			t.Errorf("%d writes: a Range of %d keys listed them %d times in a run (of %d), want at most %d", writes, n, most, runs, 1+writes)
		}
	}
}
