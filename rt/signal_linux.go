package rt

import (
	"os"
	"syscall"

	"heddle.dev/internal/engine"
)

// Tgkill replaces syscall.Tgkill(tgid, tid, sig). During an exploration a
// signal sent to a thread of the own process is Kill's: the runtime's
// handler takes it on that thread and os/signal delivers it as any
// signal of the process; any other is sent.
func Tgkill(tgid, tid int, sig syscall.Signal) error {
	if x := engine.Current(); x != nil && tgid == os.Getpid() && signalSelf(x, sig) {
		return nil
	}
	return syscall.Tgkill(tgid, tid, sig)
}
