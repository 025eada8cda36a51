package golden

import (
	"database/sql"
	"expvar"
	"mime"
	"net/http"
	"runtime/debug"
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
