package explore

import "heddle.dev/internal/engine"

// Under the race detector, a strategy's Choose must not run on the
// controlled goroutines: they call it one after the other with the
// detector's view of their synchronization hidden, so its state (maps,
// counters) would look raced on. stratServer runs Choose on a goroutine of
// its own; the controlled goroutine waits for the answer with its
// synchronization hidden, so that nothing orders it after the strategy's
// past. The host (the test goroutine) synchronizes with the server before
// and after each run, so that Begin and End, which it calls itself, are
// ordered with every Choose.
type stratServer struct {
	req chan stratReq
	rep chan int
}

type stratReq struct {
	s    engine.Strategy
	p    *engine.Point // nil: a synchronization of the host with the server
	stop bool
}

func newStratServer() *stratServer {
	srv := &stratServer{req: make(chan stratReq), rep: make(chan int)}
	go srv.serve()
	return srv
}

func (srv *stratServer) serve() {
	for r := range srv.req {
		if r.stop {
			return
		}
		i := 0
		if r.p != nil {
			i = r.s.Choose(r.p)
		}
		srv.rep <- i
	}
}

// sync orders the host with everything the server did so far, and the
// server with everything the host did.
func (srv *stratServer) sync() {
	srv.req <- stratReq{}
	<-srv.rep
}

// close stops the server. It sends rather than closes the channel: a close
// is a write of the channel, which would race with the controlled
// goroutines' sends, whose synchronization is hidden.
func (srv *stratServer) close() { srv.req <- stratReq{stop: true} }

// served is a strategy whose Choose runs on a stratServer.
type served struct {
	engine.Strategy
	srv *stratServer
}

func (s served) Choose(p *engine.Point) int {
	engine.HideSync()
	s.srv.req <- stratReq{s: s.Strategy, p: p}
	i := <-s.srv.rep
	engine.ShowSync()
	return i
}
