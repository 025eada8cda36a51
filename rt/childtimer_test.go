package rt_test

import (
	"os"
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

// TestTimerWaitsForIO: the test goroutine waits in a read of an os.Pipe
// (as in an HTTP request, in net/http) whose writer, a goroutine heddle
// does not control, writes as soon as a goroutine of the test wakes it
// after 50ms; another goroutine sleeps a second. Natively the read ends at
// once after the 50ms, long before the second. The run fired the second's
// timer as soon as nothing else could run, before the read came back, and
// the read saw the clock a second later: a timer now waits a little, in
// real time, for a goroutine detached in I/O (failsafehttp's
// TestClientCancelWithContext).
func TestTimerWaitsForIO(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	kick := make(chan struct{}, 1)
	go func() { // not controlled: an HTTP server, say
		<-kick
		w.Write([]byte{1})
	}()
	s := strategy.NewRandom(1)
	s.Begin(1)
	var took time.Duration
	res := engine.Run(engine.Config{DetachWait: time.Second}, s, func() {
		rt.Go(func() {
			rt.Sleep(50 * time.Millisecond)
			kick <- struct{}{}
		})
		slow := make(chan struct{})
		rt.Go(func() {
			rt.Sleep(time.Second)
			rt.Close(slow)
		})
		start := rt.Now()
		r.Read(make([]byte, 1))
		took = rt.Since(start)
		rt.Recv(slow)
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if took >= time.Second {
		t.Fatalf("the read woken after 50ms took %v of virtual time", took)
	}
}
