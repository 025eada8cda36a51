package rt_test

import (
	"os/exec"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestTimerWaitsForChildProcess: a goroutine runs a child process that
// takes 100 ms while the test sleeps a second and then expects it done, as
// go-quartz's TestScheduler expects its shell job (ls) to have run. The
// sleep fired as soon as nothing else could run, before the child ended,
// and the test failed, which natively it never does: a timer due later
// than a child process waited for now waits for it, in real time, for as
// long as its delay.
func TestTimerWaitsForChildProcess(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	s := strategy.NewRandom(1)
	s.Begin(1)
	done := false
	var err error
	res := engine.Run(engine.Config{DetachWait: 50 * time.Millisecond, ChildWait: time.Minute}, s, func() {
		var mu sync.Mutex
		rt.Go(func() {
			e := exec.Command("sleep", "0.1").Run()
			rt.MutexLock(&mu)
			done, err = true, e
			rt.MutexUnlock(&mu)
		})
		rt.Sleep(time.Second)
		rt.MutexLock(&mu)
		defer rt.MutexUnlock(&mu)
		if !done {
			panic("the child process of 100ms has not ended after a sleep of 1s")
		}
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if err != nil {
		t.Fatalf("sleep: %v", err)
	}
}
