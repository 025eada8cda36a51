package rt

import (
	"context"
	"os"
	"os/signal"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
)

// SignalAfter is how long after signal.Notify (or NotifyContext), in the
// virtual time of a run, the signal arrives at the latest. A timer of
// that length fires as soon as no goroutine can run, so in practice the
// signal arrives when the program waits for it and for nothing else: a
// user pressing Ctrl-C on a server that is idle. A program whose tickers
// keep it busy gets it after a minute of virtual time.
const SignalAfter = time.Minute

// SignalNotify replaces signal.Notify(c, sig...). During an exploration it
// registers nothing with the operating system (a real Ctrl-C still stops
// heddle) and instead delivers one signal to c, the first of sig
// (os.Interrupt if none is named), as the operating system would, without
// blocking, SignalAfter from now or as soon as the run is idle. A goroutine
// left waiting on c when the test returns is not a leak: the operating
// system could send another signal. Outside an exploration it is
// signal.Notify.
func SignalNotify(c chan<- os.Signal, sig ...os.Signal) {
	x := engine.Current()
	if x == nil {
		signal.Notify(c, sig...)
		return
	}
	x.NotifySignal(*(*unsafe.Pointer)(unsafe.Pointer(&c)))
	s := os.Signal(os.Interrupt)
	if len(sig) > 0 {
		s = sig[0]
	}
	AfterFunc(SignalAfter, func() {
		Select(true, SendCase(c, s))
	})
}

// SignalNotifyContext replaces signal.NotifyContext(parent, sig...).
// During an exploration the context is cancelled as if the signal
// arrived, when SignalNotify would deliver it; stop cancels it at once.
// Outside an exploration it is signal.NotifyContext.
func SignalNotifyContext(parent context.Context, sig ...os.Signal) (context.Context, context.CancelFunc) {
	if engine.Current() == nil {
		return signal.NotifyContext(parent, sig...)
	}
	ctx, cancel := WithCancel(parent)
	t := AfterFunc(SignalAfter, cancel)
	return ctx, func() {
		TimerStop(t)
		cancel()
	}
}
