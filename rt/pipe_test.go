package rt_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Pipes block inside code heddle does not control. A controlled goroutine
// blocked in a pipe's Read or Write is detached (detach.go), so the
// goroutine at the other end runs: no false deadlock, blocked report or
// hang, and the data arrives.
func TestPipesBetweenControlledGoroutines(t *testing.T) {
	pipes := map[string]func() (io.ReadCloser, io.WriteCloser){
		"io.Pipe": func() (io.ReadCloser, io.WriteCloser) { return io.Pipe() },
		"net.Pipe": func() (io.ReadCloser, io.WriteCloser) {
			a, b := net.Pipe()
			return a, b
		},
		"os.Pipe": func() (io.ReadCloser, io.WriteCloser) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		},
	}
	for name, mk := range pipes {
		t.Run(name, func(t *testing.T) {
			for run := 1; run <= 10; run++ {
				s := strategy.NewRandom(int64(run))
				s.Begin(run)
				var got []string
				res := engine.Run(engine.Config{StepLimit: 100000}, s, func() {
					r, w := mk()
					done := rt.MakeChan[chan struct{}](0)
					rt.Go(func() {
						defer rt.Close(done)
						sc := bufio.NewScanner(r) // blocks in Read before the writer runs
						for sc.Scan() {
							got = append(got, sc.Text())
						}
						r.Close()
					})
					rt.Sleep(time.Millisecond)
					io.WriteString(w, "one\n")
					io.WriteString(w, "two\n")
					w.Close()
					rt.Recv(done)
				})
				if res.Internal != "" {
					t.Fatalf("run %d: internal error: %s", run, res.Internal)
				}
				if res.Bug != nil {
					t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
				}
				if len(got) != 2 || got[0] != "one" || got[1] != "two" {
					t.Fatalf("run %d: read %q", run, got)
				}
			}
		})
	}
}

// A Read of a pipe that no one will ever write to is reported blocked
// outside heddle's control, once the run waited for the reader to come
// back, with the stacks.
func TestPipeReadForeverIsBlocked(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{DetachWait: 200 * time.Millisecond}, s, func() {
		r, w := io.Pipe()
		defer w.Close()
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			r.Read(make([]byte, 1))
			rt.Close(done)
		})
		rt.Recv(done)
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindBlocked {
		t.Fatalf("got %v, want blocked outside heddle's control", res.Bug)
	}
	if res.Bug.G == nil || res.Bug.G.PendingKind() != engine.OpNative || !strings.Contains(res.Bug.Stack, "io.(*pipe).read") {
		t.Fatalf("blocked: %v in\n%s", res.Bug.G, res.Bug.Stack)
	}
}

// A wait in code heddle does not control that something outside the run
// ends (a server the test started natively answers after a while) is no
// deadlock: the run waits for the detached goroutine to come back.
func TestSlowNativeWaitIsNoDeadlock(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	var got int
	res := engine.Run(engine.Config{}, s, func() {
		c := make(chan int) // native: not rewritten
		go func() {
			time.Sleep(300 * time.Millisecond) // longer than engine.ForeignWait
			c <- 1
		}()
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() { rt.Close(done) })
		got = <-c
		rt.Recv(done)
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if got != 1 {
		t.Fatalf("got %d", got)
	}
}

// A goroutine that waits for a child process (exec.Cmd's Run) longer than
// DetachWait is not blocked: the child works, and natively the test waits
// for it (go.uber.org/atomic's TestNocmpIntegration runs "go build" with
// an empty build cache). The run waits for it up to ChildWait.
func TestChildProcessWaitIsNotBlocked(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	s := strategy.NewRandom(1)
	s.Begin(1)
	var err error
	// A watchdog as heddle's, quicker: the run is stuck when it makes no
	// progress for a second (the monitor looks every 100ms; the second
	// leaves it room on a loaded machine). Before, the wait in a system
	// call was not detached, made no progress, and was reported blocked.
	var progress atomic.Int64
	stuck, stop := make(chan struct{}), make(chan struct{})
	defer close(stop)
	go func() {
		last, since := progress.Load(), time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-time.After(10 * time.Millisecond):
				if p := progress.Load(); p != last {
					last, since = p, now
				} else if now.Sub(since) >= time.Second {
					close(stuck)
					return
				}
			}
		}
	}()
	res := engine.Run(engine.Config{Progress: &progress, Stuck: stuck, DetachWait: 50 * time.Millisecond, ChildWait: time.Minute}, s, func() {
		err = exec.Command("sleep", "2").Run()
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

// A child process that outlasts ChildWait is reported, as a wait for a
// child process.
func TestChildProcessWaitTooLongIsBlocked(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	s := strategy.NewRandom(1)
	s.Begin(1)
	// The run abandons the goroutine waiting for the child: cancelling
	// the context kills the child (its Process is the abandoned
	// goroutine's, still running).
	ctx, cancel := context.WithCancel(context.Background())
	res := engine.Run(engine.Config{DetachWait: 50 * time.Millisecond, ChildWait: 100 * time.Millisecond}, s, func() {
		exec.CommandContext(ctx, "sleep", "5").Run()
	})
	cancel()
	if res.Bug == nil || res.Bug.Kind != engine.KindBlocked || !strings.Contains(res.Bug.Message, "waited for a child process for 100ms") {
		t.Fatalf("got %v, want blocked waiting for a child process", res.Bug)
	}
}
