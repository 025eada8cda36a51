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
	h := signals(x)
	r := &signalReg{c: c, sig: sig}
	h.add(r)
	s := os.Signal(os.Interrupt)
	if len(sig) > 0 {
		s = sig[0]
	}
	AfterFunc(SignalAfter, func() {
		// A signal from outside reaches c only while c still wants it
		// (no Stop, Ignore or Reset of it since).
		if h.stillWants(r, s) {
			Select(true, SendCase(c, s))
		}
	})
}

// SignalNotifyContext replaces signal.NotifyContext(parent, sig...).
// During an exploration the context is cancelled as if the signal
// arrived, when SignalNotify would deliver it, with os/signal's cause
// ("interrupt signal received"); stop cancels it at once, then stops the
// delivery, as os/signal's does. Outside an exploration it is
// signal.NotifyContext.
func SignalNotifyContext(parent context.Context, sig ...os.Signal) (context.Context, context.CancelFunc) {
	if engine.Current() == nil {
		return signal.NotifyContext(parent, sig...)
	}
	ctx, cancel := WithCancelCause(parent)
	r := &signalReg{fn: func(s os.Signal) { cancel(signalError(s.String() + " signal received")) }, sig: sig}
	h := signals(engine.Current())
	h.add(r)
	s := os.Signal(os.Interrupt)
	if len(sig) > 0 {
		s = sig[0]
	}
	t := AfterFunc(SignalAfter, func() {
		if h.stillWants(r, s) {
			r.fn(s)
		}
	})
	return ctx, func() {
		TimerStop(t)
		cancel(nil)
		if x := engine.Current(); x != nil {
			signals(x).remove(func(q *signalReg) bool { return q == r })
		}
	}
}

// signalError is os/signal's cause of a NotifyContext's cancel.
type signalError string

func (s signalError) Error() string { return string(s) }

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

// SignalIgnore replaces signal.Ignore(sig...). During an exploration it
// changes the run's model of os/signal only, not the process (whose
// state would outlive the run): no registration wants the signals any
// more (os/signal's cancel), and a signal among them the program sends
// itself is dropped, as the operating system drops an ignored signal.
// Outside an exploration it is signal.Ignore.
func SignalIgnore(sig ...os.Signal) {
	x := engine.Current()
	if x == nil {
		signal.Ignore(sig...)
		return
	}
	signals(x).cancel(sig, true)
}

// SignalReset replaces signal.Reset(sig...). During an exploration no
// registration of the run wants the signals any more, and they are no
// longer ignored: a signal among them the program sends itself takes its
// default action (it is sent for real). Outside an exploration it is
// signal.Reset.
func SignalReset(sig ...os.Signal) {
	x := engine.Current()
	if x == nil {
		signal.Reset(sig...)
		return
	}
	signals(x).cancel(sig, false)
}

// SignalIgnored replaces signal.Ignored(sig): during an exploration it
// reports whether the run ignores sig (SignalIgnore).
func SignalIgnored(sig os.Signal) bool {
	x := engine.Current()
	if x == nil {
		return signal.Ignored(sig)
	}
	h := signals(x)
	h.touch(false)
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := sig.(syscall.Signal)
	return ok && h.ignored[s]
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
	fn  func(os.Signal)
	sig []os.Signal             // none: all signals
	off map[syscall.Signal]bool // signals Ignore or Reset took from it
}

func (r *signalReg) wants(s syscall.Signal) bool {
	if r.off[s] {
		return false
	}
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

// matches reports whether s is among sigs (all signals if none).
func matches(sigs []os.Signal, s syscall.Signal) bool {
	if len(sigs) == 0 {
		return true
	}
	for _, t := range sigs {
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
	ignored map[syscall.Signal]bool // Ignore'd, not Notify'd or Reset since
	pending []syscall.Signal
	looping bool
	idle    chan struct{} // closed when the delivering goroutine ends
}

// stillWants reports whether r is registered and wants s (a signal from
// outside the process would reach it).
func (h *signalHub) stillWants(r *signalReg, s os.Signal) bool {
	h.touch(false)
	h.mu.Lock()
	defer h.mu.Unlock()
	sig, ok := s.(syscall.Signal)
	for _, q := range h.regs {
		if q == r {
			return !ok || r.wants(sig)
		}
	}
	return false
}

// cancel is os/signal's cancel: no registration wants sigs (all if none)
// any more; ignore: they are ignored, else they take their default
// action again.
func (h *signalHub) cancel(sigs []os.Signal, ignore bool) {
	h.touch(true)
	h.mu.Lock()
	defer h.mu.Unlock()
	if ignore && h.ignored == nil {
		h.ignored = map[syscall.Signal]bool{}
	}
	for s := syscall.Signal(1); s < numSignals; s++ {
		if !matches(sigs, s) {
			continue
		}
		for _, r := range h.regs {
			if r.off == nil {
				r.off = map[syscall.Signal]bool{}
			}
			r.off[s] = true
		}
		if ignore {
			h.ignored[s] = true
		} else {
			delete(h.ignored, s)
		}
	}
}

// numSignals bounds the signal numbers (the runtime's _NSIG on Linux).
const numSignals = 65

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
	// Notify enables the signals again: they are no longer ignored.
	for s := range h.ignored {
		if matches(r.sig, s) {
			delete(h.ignored, s)
		}
	}
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
	if h.ignored[sig] {
		// The operating system drops an ignored signal.
		h.mu.Unlock()
		return true
	}
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
					r.fn(os.Signal(s))
				}
			}
		}
	}
}
