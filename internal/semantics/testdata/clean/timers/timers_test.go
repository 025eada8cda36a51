// Package timers: timer channels under the module's go line (go1.23 and
// later: unbuffered, and Stop/Reset discard a pending value).
package timers

import (
	"testing"
	"time"
)

func TestTimerChanUnbuffered(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	if c := cap(tm.C); c != 0 {
		t.Fatalf("cap(t.C) = %d, want 0", c)
	}
}

func TestTimerChanLenZero(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond) // fired: its value waits to be received
	if n := len(tm.C); n != 0 {
		t.Fatalf("len(t.C) = %d after firing, want 0", n)
	}
	<-tm.C
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	if c := cap(tk.C); c != 0 {
		t.Fatalf("cap(ticker.C) = %d, want 0", c)
	}
	if c := cap(time.After(time.Hour)); c != 0 {
		t.Fatalf("cap(time.After(d)) = %d, want 0", c)
	}
}

func TestResetDiscardsStaleValue(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	tm.Reset(time.Hour)
	select {
	case <-tm.C:
		t.Fatal("stale value after Reset")
	default:
	}
	tm.Stop()
}

func TestTickerStopDiscards(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	tk.Stop()
	select {
	case <-tk.C:
		t.Fatal("stale tick after Stop")
	default:
	}
}

func TestTickerResetDiscards(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	time.Sleep(5 * time.Millisecond)
	tk.Reset(time.Hour)
	select {
	case <-tk.C:
		t.Fatal("stale tick after Reset")
	default:
	}
}
