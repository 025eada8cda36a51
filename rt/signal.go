package rt

import (
	"context"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
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
	signals(x).add(&signalReg{c: c, sig: sig})
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
	r := &signalReg{fn: cancel, sig: sig}
	signals(engine.Current()).add(r)
	t := AfterFunc(SignalAfter, cancel)
	return ctx, func() {
		TimerStop(t)
		if x := engine.Current(); x != nil {
			signals(x).remove(func(q *signalReg) bool { return q == r })
		}
		cancel()
	}
}

// SignalStop replaces signal.Stop(c). During an exploration c receives
// none of the signals the program sends itself from now on: as natively,
// Stop waits until a delivery under way ends.
func SignalStop(c chan<- os.Signal) {
	x := engine.Current()
	if x == nil {
		signal.Stop(c)
		return
	}
	signals(x).remove(func(r *signalReg) bool { return r.c == c })
}

// signalSelf sends sig to the own process during a run (a kill(2) of the
// own pid, an os.Process.Signal of it), if a signal.Notify of the run
// wants it: natively the runtime's handler queues it before the kill
// returns and os/signal's goroutine delivers it to the channels later,
// so it is delivered by a goroutine of the run started at the send. It
// reports false, the caller sending the real signal, if nothing of the
// run wants it (natively the signal's default action: the process may
// end, as it would without heddle).
func signalSelf(x *engine.Exec, sig syscall.Signal) bool {
	if sig == 0 {
		return false
	}
	return signals(x).send(x, sig)
}

// signalReg is one signal.Notify (c) or NotifyContext (fn) of a run.
type signalReg struct {
	c   chan<- os.Signal
	fn  func()
	sig []os.Signal // none: all signals
}

func (r *signalReg) wants(s syscall.Signal) bool {
	if len(r.sig) == 0 {
		return true
	}
	for _, t := range r.sig {
		if t == os.Signal(s) {
			return true
		}
	}
	return false
}

// signalHub is the signal state of a run, modelled on package os/signal
// and the runtime's signal queue: the registrations, the signals sent
// but not yet taken by the delivering goroutine (a set: a signal sent
// again before it is taken is delivered once, as the runtime's mask
// does), and that goroutine while it runs. Each access of the state is a
// step on the hub (touch), so that the search sees a Stop, a send and
// the delivery depend on one another. Its goroutines take steps only
// outside mu, which orders the state's accesses for the race detector
// (it does not see heddle's handoffs).
type signalHub struct {
	mu      sync.Mutex
	regs    []*signalReg
	pending []syscall.Signal
	looping bool
	idle    chan struct{} // closed when the delivering goroutine ends
}

// signals returns x's signal hub (nil outside an exploration).
func signals(x *engine.Exec) *signalHub {
	if x == nil {
		return nil
	}
	return x.SignalHub(func() any { return new(signalHub) }).(*signalHub)
}

// touch is a step accessing the hub's state (write: changing it).
func (h *signalHub) touch(write bool) {
	x := engine.Current()
	if x == nil {
		return
	}
	kind := engine.OpMapRead
	if write {
		kind = engine.OpMapWrite
	}
	x.Access(unsafe.Pointer(h), kind)
}

func (h *signalHub) add(r *signalReg) {
	if h == nil {
		return
	}
	h.touch(true)
	h.mu.Lock()
	h.regs = append(h.regs, r)
	h.mu.Unlock()
}

// remove drops the registrations drop selects and waits until a delivery
// under way ends (os/signal's Stop: signalWaitUntilIdle).
func (h *signalHub) remove(drop func(*signalReg) bool) {
	h.touch(true)
	h.mu.Lock()
	kept := h.regs[:0:0]
	for _, r := range h.regs {
		if !drop(r) {
			kept = append(kept, r)
		}
	}
	h.regs = kept
	idle := h.idle
	h.mu.Unlock()
	if idle != nil {
		Select(false, RecvCase((<-chan struct{})(idle)))
	}
}

func (h *signalHub) send(x *engine.Exec, sig syscall.Signal) bool {
	h.touch(true)
	h.mu.Lock()
	wanted := false
	for _, r := range h.regs {
		wanted = wanted || r.wants(sig)
	}
	if !wanted {
		h.mu.Unlock()
		return false
	}
	queued := false
	for _, s := range h.pending {
		queued = queued || s == sig
	}
	if !queued {
		h.pending = append(h.pending, sig)
	}
	start := !h.looping
	h.looping = true
	h.mu.Unlock()
	if start {
		idle := MakeChan[chan struct{}](0)
		h.mu.Lock()
		h.idle = idle
		h.mu.Unlock()
		Go(func() { h.loop(x) })
	}
	return true
}

// loop is os/signal's goroutine: it takes the pending signals at once
// (the runtime's signal_recv copies its mask), lowest first, and sends
// each to every channel registered for it without blocking, in an order
// the run draws (natively a map's order), until none is pending.
func (h *signalHub) loop(x *engine.Exec) {
	for {
		h.touch(true)
		h.mu.Lock()
		batch := h.pending
		h.pending = nil
		if len(batch) == 0 {
			h.looping = false
			idle := h.idle
			h.idle = nil
			h.mu.Unlock()
			Close(idle)
			return
		}
		h.mu.Unlock()
		sort.Slice(batch, func(i, j int) bool { return batch[i] < batch[j] })
		for _, s := range batch {
			h.touch(false)
			h.mu.Lock()
			var regs []*signalReg
			for _, r := range h.regs {
				if r.wants(s) {
					regs = append(regs, r)
				}
			}
			h.mu.Unlock()
			order := make([]int, len(regs))
			for i := range order {
				order[i] = i
			}
			for _, i := range shuffledKeys(x, order) {
				if r := regs[i]; r.c != nil {
					Select(true, SendCase(r.c, os.Signal(s)))
				} else {
					r.fn()
				}
			}
		}
	}
}
