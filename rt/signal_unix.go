//go:build unix

package rt

import (
	"os"
	"syscall"

	"heddle.dev/internal/engine"
)

// Kill replaces syscall.Kill(pid, sig). During an exploration a signal
// the program sends its own process, and a signal.Notify of the run
// wants, is delivered as the program's signal handling would deliver it
// (signalSelf), not by the operating system; any other is sent.
func Kill(pid int, sig syscall.Signal) error {
	if x := engine.Current(); x != nil && pid == os.Getpid() && signalSelf(x, sig) {
		return nil
	}
	return syscall.Kill(pid, sig)
}
