package rt_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// The watchdog asks whether the goroutine holding the processor computes
// or waits: a long computation is slow, not blocked outside heddle's
// control.
func TestComputingTellsSlowFromBlocked(t *testing.T) {
	for _, tc := range []struct {
		name      string
		computing bool
		body      func(release <-chan struct{})
	}{
		{"computing", true, func(release <-chan struct{}) {
			x := 0
			for i := 0; ; i++ {
				x += i
				if i%1024 == 0 {
					select {
					case <-release:
						return
					default:
					}
				}
			}
		}},
		{"native lock", false, func(release <-chan struct{}) {
			var mu sync.Mutex // not rewritten: blocks for real
			mu.Lock()
			go func() { <-release; mu.Unlock() }()
			mu.Lock()
		}},
		{"native receive", false, func(release <-chan struct{}) { <-release }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strategy.NewRandom(1)
			s.Begin(1)
			release := make(chan struct{})
			started := make(chan struct{})
			got := make(chan bool, 1)
			go func() {
				<-started
				time.Sleep(20 * time.Millisecond) // let it reach the loop or block
				var c bool
				for i := 0; i < 20; i++ { // a computing goroutine may be caught waiting for a P
					if c = engine.Active().Computing(); c {
						break
					}
				}
				got <- c
				close(release)
			}()
			res := engine.Run(engine.Config{}, s, func() {
				rt.Gosched()
				close(started)
				tc.body(release)
			})
			if res.Bug != nil {
				t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
			}
			if c := <-got; c != tc.computing {
				t.Errorf("Computing() = %v, want %v", c, tc.computing)
			}
		})
	}
}
