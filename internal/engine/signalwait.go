package engine

import "unsafe"

// NotifySignal records that the channel at ch receives the signals
// signal.Notify would deliver to it.
//
//go:norace
func (e *Exec) NotifySignal(ch unsafe.Pointer) {
	e.signalChans = append(e.signalChans, ch)
}

// SignalHub returns the run's signal state of package rt (its
// signal.Notify registrations and pending self-sent signals), made by mk
// at the first call of the run.
//
//go:norace
func (e *Exec) SignalHub(mk func() any) any {
	if e.signalHub == nil {
		e.signalHub = mk()
	}
	return e.signalHub
}

// SignalWait reports whether g's pending receive or select waits on a
// channel signal.Notify delivers to. Such a goroutine, left waiting when
// the test returns, is not leaked: it is a daemon the operating system
// can wake at any time (natively, a program waiting for a signal never
// counts as deadlocked either), like ginkgo's interrupt handler, which
// lives as long as the process.
//
//go:norace
func (g *G) SignalWait() bool {
	if g == nil || g.exec == nil || len(g.exec.signalChans) == 0 {
		return false
	}
	return g.recvWaitsOn(func(ch unsafe.Pointer) bool {
		for _, s := range g.exec.signalChans {
			if s == ch {
				return true
			}
		}
		return false
	})
}
