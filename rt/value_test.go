package rt_test

import (
	"reflect"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// sync.Once has value semantics: assigning a fresh Once arms it again, and
// a copy of a done Once is done.
func TestOnceValueSemantics(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	var calls, copyCalls int
	res := engine.Run(engine.Config{}, s, func() {
		var once sync.Once
		rt.OnceDo(&once, func() { calls++ })
		rt.OnceDo(&once, func() { calls++ })
		var done sync.Once // a copy of once, made as vet does not object to
		reflect.ValueOf(&done).Elem().Set(reflect.ValueOf(&once).Elem())
		rt.OnceDo(&done, func() { copyCalls++ })
		once = sync.Once{}
		rt.OnceDo(&once, func() { calls++ })
		rt.OnceDo(&once, func() { calls++ })
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if calls != 2 {
		t.Errorf("f ran %d times, want 2: once before and once after once = sync.Once{}", calls)
	}
	if copyCalls != 0 {
		t.Errorf("a copy of a done Once ran f %d times", copyCalls)
	}
}

// valueCopy returns a copy of *p, made as vet does not object to.
func valueCopy[T any](p *T) *T {
	q := new(T)
	reflect.ValueOf(q).Elem().Set(reflect.ValueOf(p).Elem())
	return q
}

// runClean runs body once and fails on any bug.
func runClean(t *testing.T, body func()) {
	t.Helper()
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, body)
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
}

// sync.Mutex, RWMutex and WaitGroup have value semantics: a copy carries
// the state, and assigning the zero value resets it.
func TestMutexValueSemantics(t *testing.T) {
	var copyLocked, zeroLocked bool
	runClean(t, func() {
		var mu sync.Mutex
		rt.MutexLock(&mu)
		cp := valueCopy(&mu)
		copyLocked = !rt.MutexTryLock(cp)
		rt.MutexUnlock(cp) // locked: no misuse
		mu = sync.Mutex{}
		zeroLocked = !rt.MutexTryLock(&mu)
		rt.MutexUnlock(&mu)
	})
	if !copyLocked {
		t.Error("a copy of a locked Mutex is unlocked")
	}
	if zeroLocked {
		t.Error("mu = sync.Mutex{} did not unlock mu")
	}
}

func TestRWMutexValueSemantics(t *testing.T) {
	var got []bool
	runClean(t, func() {
		var rw sync.RWMutex
		rt.RWRLock(&rw)
		cp := valueCopy(&rw)
		got = append(got, rt.RWTryLock(cp), rt.RWTryRLock(cp))
		rt.RWRUnlock(cp)
		rt.RWRUnlock(cp) // the reader it carried: no misuse
		rt.RWRUnlock(&rw)
		rt.RWLock(&rw)
		wcp := valueCopy(&rw)
		got = append(got, rt.RWTryRLock(wcp))
		rt.RWUnlock(wcp) // write-locked: no misuse
		rw = sync.RWMutex{}
		got = append(got, rt.RWTryRLock(&rw))
		rt.RWRUnlock(&rw)
	})
	want := []bool{false, true, false, true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TryLock and TryRLock of copies and of a reset RWMutex: got %v, want %v", got, want)
	}
}

func TestWaitGroupValueSemantics(t *testing.T) {
	runClean(t, func() {
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 2)
		cp := valueCopy(&wg)
		rt.WaitGroupAdd(&wg, -2)
		rt.WaitGroupWait(&wg)
		rt.WaitGroupDone(cp) // the copy's counter is 2: no negative counter
		rt.WaitGroupDone(cp)
		rt.WaitGroupWait(cp)
		rt.WaitGroupAdd(&wg, 1)
		wg = sync.WaitGroup{}
		rt.WaitGroupWait(&wg) // zero again: no deadlock
	})
}

var (
	leftMu sync.Mutex
	leftRW sync.RWMutex
	leftWG sync.WaitGroup
)

// A run is one execution of the test: the state it leaves in sync objects
// that outlive it (a Mutex locked by a goroutine the run unwound) is gone
// in the next run, and outside runs.
func TestRunLeavesNoSyncState(t *testing.T) {
	for run := 0; run < 2; run++ {
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{}, s, func() {
			rt.MutexLock(&leftMu)
			rt.RWRLock(&leftRW)
			rt.WaitGroupAdd(&leftWG, 1)
			block := rt.MakeChan[chan int](0)
			rt.Go(func() {
				rt.MutexLock(&leftMu) // blocks: a leak, unwound at the end
				rt.Recv(block)
			})
		})
		if res.Bug == nil || res.Bug.Kind != engine.KindLeak {
			t.Fatalf("run %d: got %v, want the leak of the goroutine blocked in Lock", run, res.Bug)
		}
	}
	if !leftMu.TryLock() {
		t.Fatal("the Mutex the runs left locked is still locked")
	}
	leftMu.Unlock()
	if !leftRW.TryLock() {
		t.Fatal("the RWMutex the runs left read-locked is still locked")
	}
	leftRW.Unlock()
	leftWG.Wait() // the counter the runs left is zero again
}
