package rt_test

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Misuse that Go itself detects (its runtime panics or aborts, or its race
// detector's annotations report it) is a bug in heddle too. Each program
// has the misuse in some schedule; it must be found with Go's message, and
// replayed.
var misusePrograms = []struct {
	name string
	msg  string // a substring of the bug's message
	run  func()
}{
	{"wg-add-concurrent-with-wait", "sync: WaitGroup misuse: Add called concurrently with Wait", func() {
		var wg sync.WaitGroup
		rt.Go(func() {
			rt.WaitGroupAdd(&wg, 1) // should be done before the go statement
			rt.WaitGroupDone(&wg)
		})
		rt.WaitGroupWait(&wg)
	}},
	{"wg-reused-before-wait-returned", "sync: WaitGroup is reused before previous Wait has returned", func() {
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 1)
		rt.Go(func() {
			rt.WaitGroupDone(&wg)
			rt.WaitGroupAdd(&wg, 1) // the next round, while g0 is still in Wait
			rt.WaitGroupDone(&wg)
		})
		rt.WaitGroupWait(&wg)
	}},
	{"rwmutex-runlock-unlocked", "fatal error: sync: RUnlock of unlocked RWMutex", func() {
		var rw sync.RWMutex
		rt.Go(func() { rt.RWRLock(&rw) })
		rt.RWRUnlock(&rw) // before g0.1's RLock
	}},
	{"rwmutex-runlock-write-locked", "fatal error: sync: RUnlock of unlocked RWMutex", func() {
		var rw sync.RWMutex
		rt.RWLock(&rw)
		rt.RWRUnlock(&rw)
	}},
	{"rwmutex-unlock-read-locked", "fatal error: sync: Unlock of unlocked RWMutex", func() {
		var rw sync.RWMutex
		rt.RWRLock(&rw)
		rt.RWUnlock(&rw)
	}},
	{"close-nil-channel", "close of nil channel", func() {
		var ch atomic.Pointer[chan int]
		rt.Go(func() { c := rt.MakeChan[chan int](0); ch.Store(&c) })
		var c chan int
		if p := ch.Load(); p != nil {
			c = *p
		}
		rt.Close(c) // before g0.1 made it
	}},
	{"cond-copied", "sync.Cond is copied", func() {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		rt.CondSignal(c)
		// c2 := *c, which vet would report.
		c2 := new(sync.Cond)
		reflect.ValueOf(c2).Elem().Set(reflect.ValueOf(c).Elem())
		rt.CondBroadcast(c2)
	}},
}

func TestMisuseFoundAndReplayed(t *testing.T) {
	for _, p := range misusePrograms {
		t.Run(p.name, func(t *testing.T) {
			res := findBug(t, p.run)
			if res.Bug.Kind != engine.KindMisuse || !strings.Contains(res.Bug.Message, p.msg) {
				t.Fatalf("found %s %q, want misuse containing %q", res.Bug.Kind, res.Bug.Message, p.msg)
			}
			r := strategy.NewReplay(keysOf(res.Choices))
			r.Begin(1)
			again := engine.Run(engine.Config{StepLimit: 2000}, r, p.run)
			if again.Bug == nil || again.Bug.Message != res.Bug.Message {
				t.Fatalf("replay: got %v, want %q", again.Bug, res.Bug.Message)
			}
		})
	}
}

// TestWaitGroupCorrectUseIsNoMisuse: the correct patterns (Add before the
// go statement, a WaitGroup reused after Wait returned, a worker adding
// for the work it starts while the counter is positive) give no report in
// any schedule.
func TestWaitGroupCorrectUseIsNoMisuse(t *testing.T) {
	_, bugs, runs := exhaust(t, func() string {
		var wg sync.WaitGroup
		for round := 0; round < 2; round++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				rt.WaitGroupAdd(&wg, 1)
				rt.Go(func() { rt.WaitGroupDone(&wg) })
				rt.WaitGroupDone(&wg)
			})
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() { rt.WaitGroupDone(&wg) })
			rt.WaitGroupWait(&wg)
		}
		return ""
	})
	if len(bugs) > 0 {
		t.Fatalf("bugs %v in %d runs of correct WaitGroup use", bugs, runs)
	}
	if runs < 10 {
		t.Fatalf("only %d runs: the schedules were not explored", runs)
	}
}

// TestNilSyncObjectPanics: a method of a sync type called on a nil pointer
// panics with Go's runtime error, as it does natively, instead of being
// modelled as an object at address 0.
func TestNilSyncObjectPanics(t *testing.T) {
	progs := map[string]func(){
		"Mutex.Lock":     func() { var m *sync.Mutex; rt.MutexLock(m) },
		"Mutex.Unlock":   func() { var m *sync.Mutex; rt.MutexUnlock(m) },
		"RWMutex.RLock":  func() { var m *sync.RWMutex; rt.RWRLock(m) },
		"RWMutex.Lock":   func() { var m *sync.RWMutex; rt.RWLock(m) },
		"WaitGroup.Add":  func() { var wg *sync.WaitGroup; rt.WaitGroupAdd(wg, 1) },
		"WaitGroup.Wait": func() { var wg *sync.WaitGroup; rt.WaitGroupWait(wg) },
		"Cond.Signal":    func() { var c *sync.Cond; rt.CondSignal(c) },
	}
	for name, prog := range progs {
		res := runOnce(t, engine.Config{}, prog)
		if res.Bug == nil || res.Bug.Kind != engine.KindPanic || !strings.Contains(res.Bug.Message, "nil pointer dereference") {
			t.Errorf("%s on nil: got %v, want a nil pointer dereference", name, res.Bug)
		}
	}
}
