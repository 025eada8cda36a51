package rt_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestSignalTgkillSelf: a signal sent to a thread of the own process
// reaches the run's signal.Notify as a kill of the process does (sent
// for real, SIGUSR1 would end the test binary).
func TestSignalTgkillSelf(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(c, syscall.SIGUSR1)
		defer rt.SignalStop(c)
		if err := rt.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGUSR1); err != nil {
			return err.Error()
		}
		if rt.Select(false, rt.RecvCase(c), rt.RecvCase(rt.After(5*time.Second))) == 0 {
			return "got"
		}
		return "none"
	})
	if len(outcomes) != 1 || !outcomes["got"] || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want only got", keys(outcomes), bugs)
	}
}
