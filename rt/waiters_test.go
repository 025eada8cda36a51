package rt_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/cputime"
	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Many goroutines waiting on one object: the shape of golang-lru's
// expirable TestLRUConcurrency (a thousand goroutines on one mutex), where
// every Lock and Unlock changes the choices of every waiter.

// mutexWaiters is n goroutines that take a mutex the test holds while it
// starts them, then call WaitGroup.Done. first, if not nil, is given the
// index of the goroutine that took the mutex first.
func mutexWaiters(n int, first func(int)) func() {
	return func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		taken := false
		rt.WaitGroupAdd(&wg, n)
		rt.MutexLock(&mu)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				if !taken && first != nil {
					first(i)
				}
				taken = true
				rt.MutexUnlock(&mu)
				rt.WaitGroupDone(&wg)
			})
		}
		rt.MutexUnlock(&mu)
		rt.WaitGroupWait(&wg)
	}
}

// chanWaiters is n goroutines receiving from one unbuffered channel, and
// the test sending to them one value after another.
func chanWaiters(n int) func() {
	return func() {
		ch := rt.MakeChan[chan int](0)
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, n)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.Recv(ch)
				rt.WaitGroupDone(&wg)
			})
		}
		for i := 0; i < n; i++ {
			rt.Send(ch, i)
		}
		rt.WaitGroupWait(&wg)
	}
}

// condWaiters is n goroutines waiting on one Cond until the test
// broadcasts: then all of them relock its mutex.
func condWaiters(n int) func() {
	return func() {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		var wg sync.WaitGroup
		ready := false
		rt.WaitGroupAdd(&wg, n)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				for !ready {
					rt.CondWait(c)
				}
				rt.MutexUnlock(&mu)
				rt.WaitGroupDone(&wg)
			})
		}
		rt.MutexLock(&mu)
		ready = true
		rt.CondBroadcast(c)
		rt.MutexUnlock(&mu)
		rt.WaitGroupWait(&wg)
	}
}

// poolWaiters is conc's pool: n workers receiving tasks from one
// unbuffered channel in a loop, arriving there again after each task,
// while the test sends n tasks. Beside them, goroutines whose selects
// wait on both directions of the channel, and pollers (a select with a
// default, on either direction): every arrival of a receiver enables the
// senders and pollers that send, and no receiver.
func poolWaiters(n int) func() {
	return func() {
		tasks := rt.MakeChan[chan int](0)
		var workers, others sync.WaitGroup
		rt.WaitGroupAdd(&workers, n)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				for {
					if _, ok := rt.Recv2(tasks); !ok {
						break
					}
				}
				rt.WaitGroupDone(&workers)
			})
		}
		rt.WaitGroupAdd(&others, 4)
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				// Either direction: a worker takes the send, or a sender
				// (the test, a poller) meets the receive.
				rt.Select(false, rt.SendCase(tasks, -1), rt.RecvCase(tasks))
				rt.WaitGroupDone(&others)
			})
		}
		rt.Go(func() {
			for k := 0; k < 3; k++ {
				rt.Select(true, rt.SendCase(tasks, -2))
			}
			rt.WaitGroupDone(&others)
		})
		rt.Go(func() {
			for k := 0; k < 3; k++ {
				rt.Select(true, rt.RecvCase(tasks))
			}
			rt.WaitGroupDone(&others)
		})
		for i := 0; i < n; i++ {
			rt.Send(tasks, i)
		}
		rt.WaitGroupWait(&others)
		rt.Close(tasks)
		rt.WaitGroupWait(&workers)
	}
}

// rwWaiters is n goroutines, readers and writers in turn, that block on
// an RWMutex the test holds while it starts them.
func rwWaiters(n int) func() {
	return func() {
		var mu sync.RWMutex
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, n)
		rt.RWLock(&mu)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				if i%2 == 0 {
					rt.RWRLock(&mu)
					rt.RWRUnlock(&mu)
				} else {
					rt.RWLock(&mu)
					rt.RWUnlock(&mu)
				}
				rt.WaitGroupDone(&wg)
			})
		}
		rt.RWUnlock(&mu)
		rt.WaitGroupWait(&wg)
	}
}

// queuedWaiters is mutexWaiters and rwWaiters with the test sleeping while
// it holds the locks: the goroutines blocked then join the locks' queues
// (or the RWMutex's admitted readers), and those that block after do not.
func queuedWaiters(n int) func() {
	return func() {
		var mu sync.Mutex
		var rw sync.RWMutex
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 2*n)
		rt.MutexLock(&mu)
		rt.RWLock(&rw)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
				rt.WaitGroupDone(&wg)
			})
			rt.Go(func() {
				if i%2 == 0 {
					rt.RWRLock(&rw)
					rt.RWRUnlock(&rw)
				} else {
					rt.RWLock(&rw)
					rt.RWUnlock(&rw)
				}
				rt.WaitGroupDone(&wg)
			})
			if i == n/2 {
				rt.Sleep(2 * time.Millisecond)
			}
		}
		rt.MutexUnlock(&mu)
		rt.RWUnlock(&rw)
		rt.WaitGroupWait(&wg)
	}
}

var waiterShapes = []struct {
	name string
	prog func(n int) func()
}{
	{"mutex", func(n int) func() { return mutexWaiters(n, nil) }},
	{"chan", chanWaiters},
	{"cond", condWaiters},
	{"pool", poolWaiters},
	{"rwmutex", rwWaiters},
	{"queued", queuedWaiters},
}

var waiterStrategies = []struct {
	name  string
	new   func(seed int64) engine.Strategy
	trace bool
}{
	{"random", func(seed int64) engine.Strategy { return strategy.NewRandom(seed) }, false},
	{"pct", func(seed int64) engine.Strategy { return strategy.NewPCT(seed, 3) }, false},
	{"pos", func(seed int64) engine.Strategy { return strategy.NewPOS(seed) }, true},
}

// TestWaitersSameChoices runs the waiter shapes with the enabled set kept
// from step to step and rebuilt at every step: every scheduling point
// must offer the same choices, under each randomized strategy.
func TestWaitersSameChoices(t *testing.T) {
	for _, sh := range waiterShapes {
		for _, st := range waiterStrategies {
			for seed := int64(1); seed <= 3; seed++ {
				var got [2]string
				for i, from := range []int{0, -1} {
					rec := &choiceHash{s: st.new(seed)}
					rec.Begin(1)
					r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, DormantFrom: from, Trace: st.trace}, rec, sh.prog(60))
					got[i] = strconv.FormatUint(rec.h, 16) + " " + strconv.Itoa(rec.n) + " points, " + strconv.Itoa(r.Steps) + " steps"
					if r.Bug != nil {
						t.Fatalf("%s/%s seed %d: %s", sh.name, st.name, seed, r.Bug.Kind)
					}
				}
				if got[0] != got[1] {
					t.Errorf("%s/%s seed %d: kept: %s; rebuilt: %s", sh.name, st.name, seed, got[0], got[1])
				}
			}
		}
	}
}

// TestEveryWaiterCanLockFirst checks that each of the goroutines waiting
// on a mutex can be the one that takes it when it is released, under each
// randomized strategy over many seeds.
func TestEveryWaiterCanLockFirst(t *testing.T) {
	const n, seeds = 6, 300
	for _, st := range waiterStrategies {
		seen := map[int]int{}
		for seed := int64(1); seed <= seeds; seed++ {
			s := st.new(seed)
			s.Begin(1)
			r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: st.trace}, s, mutexWaiters(n, func(i int) { seen[i]++ }))
			if r.Bug != nil {
				t.Fatalf("%s seed %d: %s", st.name, seed, r.Bug.Kind)
			}
		}
		for i := 0; i < n; i++ {
			if seen[i] == 0 {
				t.Errorf("%s: waiter %d never took the mutex first in %d runs (%v)", st.name, i, seeds, seen)
			}
		}
	}
}

// BenchmarkWaiters is one run per iteration of each waiter shape with
// 1000 goroutines, under each randomized strategy of the portfolio. It
// reports the time per step, and the processor time per step (of the
// process: run it with -test.cpu 1), which the load of a shared machine
// hardly changes.
func BenchmarkWaiters(b *testing.B) {
	const n = 1000
	for _, sh := range waiterShapes {
		for _, st := range waiterStrategies {
			b.Run(sh.name+"/"+st.name, func(b *testing.B) {
				pool := new(engine.Pool)
				defer pool.Close()
				prog := sh.prog(n)
				steps := 0
				s := st.new(1)
				cpu := cpuNow()
				for i := 0; i < b.N; i++ {
					s.Begin(i + 1)
					steps += engine.Run(engine.Config{Pool: pool, Trace: st.trace}, s, prog).Steps
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
				b.ReportMetric(float64(cpuNow()-cpu)/float64(steps), "cpu-ns/step")
			})
		}
	}
}

// cpuNow is the process's processor time, 0 when it is not known.
func cpuNow() time.Duration {
	d, _ := cputime.Process()
	return d
}
