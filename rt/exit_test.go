package rt_test

import (
	"log"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// exitRun runs body once under a random strategy.
func exitRun(t *testing.T, body func()) *engine.Result {
	t.Helper()
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, body)
	s.End(res)
	return res
}

// TestExitEndsTheRun: rt.Exit (os.Exit in rewritten code) ends the run at
// once. A non-zero status is a failure naming it; status 0 is a normal end
// with no leak check, though a goroutine is blocked forever; nothing runs
// after the call, in the caller or elsewhere, and no goroutine outlives the
// run.
func TestExitEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		code int
		kind string
	}{{3, engine.KindFail}, {0, ""}} {
		after := false
		res := exitRun(t, func() {
			block := rt.MakeChan[chan int](0)
			rt.Go(func() { rt.Recv(block) }) // blocked forever
			done := rt.MakeChan[chan int](0)
			rt.Go(func() {
				rt.Exit(tc.code)
				after = true
			})
			rt.Recv(done) // never: the run ends first
			after = true
		})
		if after {
			t.Errorf("exit %d: code after the call ran", tc.code)
		}
		switch {
		case tc.kind == "" && res.Bug != nil:
			t.Errorf("exit 0: got %s %q, want a normal end", res.Bug.Kind, res.Bug.Message)
		case tc.kind != "" && (res.Bug == nil || res.Bug.Kind != tc.kind || res.Bug.Message != "exit status 3"):
			t.Errorf("exit 3: got %+v, want a failure \"exit status 3\"", res.Bug)
		case tc.kind != "" && res.Bug.G.ID != "g0.2":
			t.Errorf("exit 3: reported on %s, want g0.2", res.Bug.G.ID)
		}
		for _, g := range res.Gs {
			if !g.Done() {
				t.Errorf("exit %d: %s outlived the run", tc.code, g.ID)
			}
		}
	}
}

// TestExitAfterTheTestReturned: a goroutine that exits with a non-zero
// status after the test function returned is reported, saying so.
func TestExitAfterTheTestReturned(t *testing.T) {
	res := exitRun(t, func() {
		rt.Go(func() {
			rt.Sleep(time.Millisecond)
			rt.Exit(2)
		})
	})
	if res.Bug == nil || res.Bug.Message != "exit status 2 (called after the test returned)" {
		t.Fatalf("got %+v, want exit status 2 after the test returned", res.Bug)
	}
}

// TestFatalPositions: the log.Fatal family of rt writes its message at the
// caller's position, as log.Fatal does, then ends the run with status 1.
func TestFatalPositions(t *testing.T) {
	var buf strings.Builder
	l := log.New(&buf, "", log.Lshortfile)
	res := exitRun(t, func() {
		rt.LoggerFatalf(l, "cannot %s", "go on") // logged at this line
	})
	_, _, line, _ := runtime.Caller(0)
	want := "exit_test.go:" + strconv.Itoa(line-2) + ": cannot go on\n"
	if buf.String() != want {
		t.Errorf("logged %q, want %q", buf.String(), want)
	}
	if res.Bug == nil || res.Bug.Message != "exit status 1" {
		t.Errorf("got %+v, want exit status 1", res.Bug)
	}
}
