package rt

import (
	"os"
	"syscall"

	"heddle.dev/internal/engine"
)

// ProcessSignal replaces p.Signal(sig) of an *os.Process: during an
// exploration a signal to the own process is Kill's.
func ProcessSignal(p *os.Process, sig os.Signal) error {
	if x := engine.Current(); x != nil && p != nil && p.Pid == os.Getpid() {
		if s, ok := sig.(syscall.Signal); ok && signalSelf(x, s) {
			return nil
		}
	}
	return p.Signal(sig)
}
