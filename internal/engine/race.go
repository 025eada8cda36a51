//go:build race

package engine

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// Under the race detector, heddle hides its own synchronization from it and
// tells it about the synchronization of every modelled primitive:
//
//   - The handoff between controlled goroutines happens with the detector
//     ignoring synchronization (runtime.RaceDisable), so that serializing
//     the goroutines creates no happens-before edge between them.
//   - The engine's own state is touched by whichever goroutine holds the
//     processor, so every engine function is compiled without
//     instrumentation (//go:norace) and the state lives in structures whose
//     runtime code records nothing (objTable, not Go maps).
//   - Each primitive reports the edge it creates: an Unlock releases the
//     mutex's address and a Lock acquires it, WaitGroup.Done releases and
//     Wait acquires, and so on. Channels carry their values through real
//     channel operations, which the detector sees by itself.
//   - Strategies run on a goroutine of their own (package explore), and the
//     pool of reused goroutines is off, since a reused goroutine would carry
//     the history of the one before.

// RaceEnabled reports whether the program was built with -race.
const RaceEnabled = true

func raceDisable() { runtime.RaceDisable() }
func raceEnable()  { runtime.RaceEnable() }

func raceAcquire(p unsafe.Pointer)      { runtime.RaceAcquire(p) }
func raceRelease(p unsafe.Pointer)      { runtime.RaceRelease(p) }
func raceReleaseMerge(p unsafe.Pointer) { runtime.RaceReleaseMerge(p) }

// HideSync makes the race detector ignore the calling goroutine's
// synchronization until ShowSync, as in the handoff.
func HideSync() { runtime.RaceDisable() }

// ShowSync ends HideSync.
func ShowSync() { runtime.RaceEnable() }

// RaceErrors is the number of data races the race detector reported so far.
func RaceErrors() int { return runtime.RaceErrors() }

// Under the race detector, a strategy's Choose must not run on the
// controlled goroutines: they call it one after the other with the
// detector's view of their synchronization hidden, so its state (maps,
// counters) would look raced on. Run runs Choose on a goroutine of its own
// (raceServe); the controlled goroutine waits for the answer with its
// synchronization hidden, so that nothing orders it after the strategy's
// past. The goroutine that called Run synchronizes with the server when
// the run starts and ends, so that what it does with the strategy itself
// (Begin, End, reading its state) is ordered with every Choose.
type stratServer struct {
	req chan stratReq
	rep chan stratRep
}

// stratRep is Choose's answer, or its panic, which the controlled
// goroutine panics with in its place (a panic of heddle's own code is an
// internal error of the run, not a crash of the server's goroutine).
type stratRep struct {
	i        int
	panicked bool
	v        any
}

type stratReq struct {
	s    Strategy
	p    *Point // nil: a synchronization of the host with the server
	stop bool
}

// raceServe returns s with its Choose run on a server goroutine, and the
// function that ends the server once the run is over.
func raceServe(s Strategy) (Strategy, func()) {
	srv := &stratServer{req: make(chan stratReq), rep: make(chan stratRep)}
	go srv.serve()
	srv.sync()
	return served{Strategy: s, srv: srv}, func() {
		srv.sync()
		// A send rather than a close: a close is a write of the channel,
		// which would race with the controlled goroutines' sends, whose
		// synchronization is hidden.
		srv.req <- stratReq{stop: true}
	}
}

func (srv *stratServer) serve() {
	for r := range srv.req {
		if r.stop {
			return
		}
		srv.rep <- srv.choose(r)
	}
}

func (srv *stratServer) choose(r stratReq) (rep stratRep) {
	if r.p == nil {
		return rep
	}
	defer func() {
		if v := recover(); v != nil {
			// The controlled goroutine's stack ends at served.Choose: the
			// panic's own is the server's.
			rep = stratRep{panicked: true, v: fmt.Sprintf("%v\n\nthe strategy's goroutine (under the race detector):\n%s", v, debug.Stack())}
		}
	}()
	return stratRep{i: r.s.Choose(r.p)}
}

// sync orders the host with everything the server did so far, and the
// server with everything the host did.
func (srv *stratServer) sync() {
	srv.req <- stratReq{}
	<-srv.rep
}

// served is a strategy whose Choose runs on a stratServer.
type served struct {
	Strategy
	srv *stratServer
}

func (s served) Choose(p *Point) int {
	HideSync()
	s.srv.req <- stratReq{s: s.Strategy, p: p}
	rep := <-s.srv.rep
	ShowSync()
	if rep.panicked {
		panic(rep.v)
	}
	return rep.i
}
