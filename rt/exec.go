package rt

import (
	"context"
	"os/exec"
	"reflect"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The methods of exec.Cmd that start or wait for a command made by
// exec.CommandContext read its context in code heddle does not rewrite:
// Start polls the context's Done before it starts the process, and a
// goroutine of package exec's kills the process when Done is closed. With
// no step of their own, a cancel by another goroutine could not come
// before Start's poll, nor while the process runs: heddle never reached
// Run's "context canceled" or "signal: killed" (conform's
// TestExecCommandContextCancel). Each of these calls is now a read of the
// command's context first (its Err: a scheduling point, as a poll of
// Done), and Run a read between its Start and its Wait too. A cancel that
// comes while the process runs makes the run's result the operating
// system's (ExecWait).

// cmdContext returns the context of a command made by
// exec.CommandContext, nil for one made by exec.Command.
func cmdContext(c *exec.Cmd) context.Context {
	if c == nil {
		return nil
	}
	f := reflect.ValueOf(c).Elem().FieldByName("ctx")
	if !f.IsValid() || f.Kind() != reflect.Interface || f.IsNil() {
		return nil
	}
	return *(*context.Context)(unsafe.Pointer(f.UnsafeAddr()))
}

// readCmdContext is the step of a read of c's context, if it has one.
func readCmdContext(c *exec.Cmd) {
	if ctx := cmdContext(c); ctx != nil {
		_ = ctx.Err()
	}
}

// ExecStart replaces (*exec.Cmd).Start.
func ExecStart(c *exec.Cmd) error {
	readCmdContext(c)
	return c.Start()
}

// ExecWait replaces (*exec.Cmd).Wait. A context cancelled before Wait
// returned was cancelled while the process ran: package exec's goroutine
// killed it, and whether Wait reports the kill, the context's error or
// the process's own exit is up to the operating system's timing, which
// heddle does not explore: the run says so (engine.Exec.NoteOutside), and
// the search makes no claim.
func ExecWait(c *exec.Cmd) error {
	readCmdContext(c)
	err := c.Wait()
	noteCancelledWhileRunning(c)
	return err
}

// noteCancelledWhileRunning tells the run that c's result is the operating
// system's if c started and its context is done now: it was cancelled
// while the process ran (ExecWait).
func noteCancelledWhileRunning(c *exec.Cmd) {
	if c.Process == nil || c.Cancel == nil {
		return // not started, or not made by CommandContext
	}
	if ctx := cmdContext(c); ctx != nil && isDone(ctx) {
		if x := engine.Current(); x != nil {
			x.NoteOutside()
		}
	}
}

// isDone reports whether ctx's Done is closed, in no step.
func isDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// ExecRun replaces (*exec.Cmd).Run: Start and Wait, each after a read of
// the context.
func ExecRun(c *exec.Cmd) error {
	if err := ExecStart(c); err != nil {
		return err
	}
	return ExecWait(c)
}

// ExecOutput replaces (*exec.Cmd).Output: a read of the context, then
// Output (a cancel while it runs: ExecWait).
func ExecOutput(c *exec.Cmd) ([]byte, error) {
	readCmdContext(c)
	b, err := c.Output()
	noteCancelledWhileRunning(c)
	return b, err
}

// ExecCombinedOutput replaces (*exec.Cmd).CombinedOutput: a read of the
// context, then CombinedOutput (a cancel while it runs: ExecWait).
func ExecCombinedOutput(c *exec.Cmd) ([]byte, error) {
	readCmdContext(c)
	b, err := c.CombinedOutput()
	noteCancelledWhileRunning(c)
	return b, err
}
