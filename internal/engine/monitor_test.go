package engine

import (
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestMonitorLooksSeldomWithManyGoroutines: the detach monitor's look at a
// run that took no step for a while dumps every goroutine's stack, which
// with thousands of goroutines takes milliseconds or more. It looked again
// at each step slower than MonitorPeriod (a goroutine computing between
// two scheduling points, a loaded machine), and GoKer's Cockroach3710 as
// shipped spent a quarter of its time in those dumps. The monitor now
// waits at least ten times as long as its last dump took.
func TestMonitorLooksSeldomWithManyGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of goroutines and stack dumps")
	}
	const blocked, slow = 5000, 100
	before := monitorLooks.Load()
	res := Run(Config{}, firstChoice{}, func() {
		e := Current()
		var mu sync.Mutex
		e.MutexLock(unsafe.Pointer(&mu))
		for range blocked {
			e.Go(func() { e.MutexLock(unsafe.Pointer(&mu)) })
		}
		for range slow {
			// Computing between two scheduling points, for longer
			// than MonitorPeriod.
			time.Sleep(8 * MonitorPeriod)
			e.Gosched()
		}
		e.MutexUnlock(unsafe.Pointer(&mu))
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if looks := monitorLooks.Load() - before; looks > slow/10 {
		t.Errorf("the monitor dumped the stacks of %d goroutines %d times in %d slow steps, want a few", blocked, looks, slow)
	}
}

// TestLookFloor: the monitor looks at a run after MonitorPeriod without a
// step, and after ten times its last dump if that is longer.
func TestLookFloor(t *testing.T) {
	if got := lookFloor(10 * time.Microsecond); got != MonitorPeriod {
		t.Errorf("lookFloor(10µs) = %v, want MonitorPeriod %v", got, MonitorPeriod)
	}
	if got := lookFloor(30 * time.Millisecond); got != 300*time.Millisecond {
		t.Errorf("lookFloor(30ms) = %v, want 300ms", got)
	}
	// A dump that took a second of real time on a loaded machine (the
	// monitor waited for a processor) must not keep the monitor from
	// looking for ten: explore's watchdog reports a run that took no step
	// for 10 s blocked, and a goroutine waiting in a pipe's read that
	// the monitor would have detached was reported so.
	if got := lookFloor(time.Second); got > time.Second {
		t.Errorf("lookFloor(1s) = %v, want at most 1s", got)
	}
}

// TestLookCostIsProcessorTime: a look's cost is the processor time the
// process used during it where that is known, not the real time, which on
// a loaded machine counts the time the monitor waited for a processor (a
// look begun an hour ago by the wall clock, for the test).
func TestLookCostIsProcessorTime(t *testing.T) {
	cpu, ok := processCPU()
	if !ok {
		t.Skip("processor time not known on this system")
	}
	if got := lookCost(time.Now().Add(-time.Hour), cpu, ok); got >= time.Hour {
		t.Errorf("lookCost of a look begun an hour ago, the processor time just read = %v, want the processor time since", got)
	}
	if got := lookCost(time.Now().Add(-time.Hour), 0, false); got < time.Hour {
		t.Errorf("lookCost without processor time = %v, want the real time, an hour", got)
	}
}
