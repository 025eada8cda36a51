// Package oldtimers: timer channels under a go line before go1.23
// (asynctimerchan=1): buffered, and a value sent before Stop or Reset
// stays in the channel.
package oldtimers

import (
	"testing"
	"time"
)

func TestTimerChanBuffered(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	if c := cap(tm.C); c != 1 {
		t.Fatalf("cap(t.C) = %d, want 1", c)
	}
}

func TestTimerChanLenOne(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond) // fired: its value waits in the buffer
	if n := len(tm.C); n != 1 {
		t.Fatalf("len(t.C) = %d after firing, want 1", n)
	}
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	if c := cap(tk.C); c != 1 {
		t.Fatalf("cap(ticker.C) = %d, want 1", c)
	}
}

func TestResetKeepsStaleValue(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	tm.Reset(time.Hour)
	select {
	case <-tm.C:
	default:
		t.Fatal("no stale value after Reset: old timer semantics expected")
	}
	tm.Stop()
}
