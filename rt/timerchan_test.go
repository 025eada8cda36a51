package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestTimerChanLooksUnbuffered: with synchronous timer channels (this
// module's go line is past go1.23), the channel of a Timer or Ticker made
// in a run reports len and cap 0, as Go's own do, whether or not a value is
// waiting in it, and the value is still received.
func TestTimerChanLooksUnbuffered(t *testing.T) {
	if !engine.SyncTimerChans() {
		t.Skip("asynchronous timer channels (asynctimerchan=1)")
	}
	var got []int
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, func() {
		tm := rt.NewTimer(time.Millisecond)
		tk := rt.NewTicker(time.Millisecond)
		got = append(got, rt.Cap(tm.C), rt.Len(tm.C), rt.Cap(tk.C))
		rt.Sleep(5 * time.Millisecond) // both fired: a value waits in each
		got = append(got, rt.Len(tm.C), rt.Len(tk.C), rt.Cap(tm.C))
		rt.Recv(tm.C)
		rt.Recv(tk.C)
		rt.TickerStop(tk)
		// Other channels are what they are.
		ch := rt.MakeChan[chan int](3)
		rt.Send(ch, 1)
		got = append(got, rt.Cap(ch), rt.Len(ch))
	})
	if res.Bug != nil {
		t.Fatalf("bug: %v", res.Bug.Message)
	}
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	want := []int{0, 0, 0, 0, 0, 0, 3, 1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
