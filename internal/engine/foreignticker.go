package engine

import (
	"sync"
	"time"
	"unsafe"
)

// Tickers made outside every run.
//
// A ticker made before the run (a package variable's time.NewTicker,
// made at init: rcrowley/go-metrics' meter arbiter ticks every 5 s on one)
// is a real one, and heddle does not control its ticks: its channel is
// foreign to the run, and a goroutine of the run left waiting on it when
// the test returns was reported "blocked forever", where natively it
// wakes every period. rt notes such tickers here, so that reports say what
// the goroutine waits on (TickerWait).

// foreignTickers maps the channel of each live ticker made outside a run
// to its period.
var foreignTickers sync.Map // unsafe.Pointer -> time.Duration

// NoteForeignTicker records tk, made or reset with period d outside a
// run.
//
//go:norace
func NoteForeignTicker(tk *time.Ticker, d time.Duration) {
	if tk == nil || tk.C == nil || d <= 0 {
		return
	}
	foreignTickers.Store(chanAddrRecv(tk.C), d)
}

// ForgetForeignTicker forgets tk, stopped: it ticks no more.
//
//go:norace
func ForgetForeignTicker(tk *time.Ticker) {
	if tk == nil || tk.C == nil {
		return
	}
	foreignTickers.Delete(chanAddrRecv(tk.C))
}

// foreignTickerPeriod returns the period of the live ticker made outside a
// run whose channel is ch, or 0.
//
//go:norace
func foreignTickerPeriod(ch unsafe.Pointer) time.Duration {
	if d, ok := foreignTickers.Load(ch); ok {
		return d.(time.Duration)
	}
	return 0
}
