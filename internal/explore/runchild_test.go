package explore

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A child process run by this one (a run or a replay in a new process)
// leaves no goroutine behind: a test of this process that dumps every
// goroutine right after (goleak's VerifyNone, whose retries sleep in
// virtual time) saw os/exec's watchCtx goroutine, still runnable after
// Wait returned, and reported it as a leak.
func TestRunChildLeavesNoGoroutine(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	// One processor, as an exploration runs on: a goroutine Wait readied
	// is not run before this one blocks.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	out, runErr, timedOut, err := runChild(exe, []string{"-test.run=^$"}, os.Environ(), time.Minute, time.Second)
	if err != nil || runErr != nil || timedOut {
		t.Fatalf("runChild: %v, %v, timed out %v: %s", err, runErr, timedOut, out)
	}
	buf := make([]byte, 1<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	if strings.Contains(dump, "os/exec.") {
		t.Errorf("a goroutine of os/exec is left after runChild returned:\n%s", dump)
	}
	if !strings.Contains(string(out), "no tests to run") && !strings.Contains(string(out), "PASS") {
		t.Errorf("the child's output is not the test binary's: %q", out)
	}
}

// Past its limit the child is asked to stop, and runChild says so.
func TestRunChildLimit(t *testing.T) {
	_, runErr, timedOut, err := runChild("/bin/sleep", []string{"30"}, nil, 50*time.Millisecond, time.Second)
	if err != nil {
		t.Skip(err)
	}
	if runErr == nil || !timedOut {
		t.Errorf("runChild of sleep 30 with a limit of 50ms: %v, timed out %v", runErr, timedOut)
	}
}
