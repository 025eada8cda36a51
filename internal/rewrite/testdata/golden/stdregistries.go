package golden

import (
	"database/sql"
	"expvar"
	"mime"
	"net/http"
	"runtime/debug"
	"sync/atomic"
)

// Registries of the standard library kept under its own locks: each call
// is a step (rt/stdreg.go); in a defer statement, when the deferred call
// runs; in a go statement, in the new goroutine.
func registries(mux *http.ServeMux, r *http.Request) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	_ = mime.AddExtensionType(".x", "text/x")
	_ = mime.TypeByExtension(".x")
	expvar.NewInt("n")
	_ = expvar.Get("n")
	_ = sql.Drivers()
	go sql.Drivers()
	http.HandleFunc("/a", func(http.ResponseWriter, *http.Request) {})
	mux.Handle("/b", http.NotFoundHandler())
	_, _ = mux.Handler(r)
	f := mime.TypeByExtension // a value: no step
	_ = f
}

// A deferred call whose step is taken when its function value or first
// operand is evaluated is moved into a function literal, its operands
// evaluated at the defer statement: the step is taken when it runs.
func deferred(n *atomic.Bool, x *int32, m map[string]*atomic.Int64) {
	defer n.Store(false)
	defer m["k"].Add(int64(len(m)))
	defer atomic.AddInt32(x, 1)
	go atomic.AddInt32(x, 2)
	defer mime.AddExtensionType(".y", "text/y")
}

// A call statement whose step is taken first, and whose operands may
// take steps of their own, evaluates them into temporaries first.
func operands(n *atomic.Int32, x *int32, ch chan int32) {
	n.Store(<-ch)
	atomic.StoreInt32(x, <-ch)
	n.Store(3) // nothing to move
	_ = mime.AddExtensionType(".z", string(rune(<-ch)))
	mime.AddExtensionType(".z", string(rune(<-ch)))
	old := n.Swap(<-ch)
	old = n.Swap(<-ch)
	_ = old
}

func result(n *atomic.Int32, ch chan int32) int32 {
	return n.Swap(<-ch)
}
