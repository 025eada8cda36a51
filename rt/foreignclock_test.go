package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A goroutine heddle does not control (an HTTP server's handler, started
// by net/http's own go statement) reads the clock through rewritten code
// during a run: it reads the run's virtual clock, as the test's goroutines
// do, not the real one. Since and Until compare an instant without a
// monotonic reading with the virtual clock, one with a monotonic reading
// (read natively) with the real clock.
func TestForeignGoroutineReadsVirtualClock(t *testing.T) {
	type reads struct {
		now, nowAgain time.Time
		since, until  time.Duration
		nano          int64
		sec           int64
		realSince     time.Duration
	}
	ask := make(chan time.Time)
	answer := make(chan reads)
	stop := make(chan struct{})
	defer close(stop)
	realStart := time.Now() // with a monotonic reading
	go func() {             // started outside any run: not controlled
		for {
			select {
			case <-stop:
				return
			case opened := <-ask:
				var r reads
				r.now = rt.Now()
				r.since = rt.Since(opened)
				r.until = rt.Until(opened.Add(time.Minute))
				r.nano = rt.Nanotime()
				r.sec, _, _ = rt.TimeNow()
				r.realSince = rt.Since(realStart)
				r.nowAgain = rt.Now()
				answer <- r
			}
		}
	}()
	var before, after time.Time
	var got reads
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{StepLimit: 1 << 20}, s, func() {
		opened := rt.Now()
		rt.Sleep(time.Hour)
		before = rt.Now()
		ask <- opened // native channels: the goroutine answers in this step
		got = <-answer
		after = rt.Now()
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if got.now.Before(before) || got.now.After(after) {
		t.Errorf("the foreign goroutine read %v, the test %v before asking and %v after", got.now, before, after)
	}
	if got.nowAgain.Before(got.now) {
		t.Errorf("the foreign goroutine's clock went back: %v, then %v", got.now, got.nowAgain)
	}
	if got.since < time.Hour || got.since > time.Hour+time.Second {
		t.Errorf("the foreign goroutine's Since of the test's instant before a sleep of an hour is %v", got.since)
	}
	if got.until < -time.Hour+time.Minute-time.Second || got.until > -time.Hour+time.Minute {
		t.Errorf("the foreign goroutine's Until of a minute after that instant is %v, want about -59m", got.until)
	}
	if want := got.now.UnixNano(); got.nano < before.UnixNano() || got.nano > after.UnixNano() {
		t.Errorf("the foreign goroutine's Nanotime is %d, its Now %d", got.nano, want)
	}
	if got.sec != got.now.Unix() {
		t.Errorf("the foreign goroutine's TimeNow has %d seconds, its Now %d", got.sec, got.now.Unix())
	}
	if got.realSince <= 0 || got.realSince > time.Since(realStart) {
		t.Errorf("the foreign goroutine's Since of a real instant is %v, want the real time since it, %v at most", got.realSince, time.Since(realStart))
	}
	// Outside a run, the real clock.
	if d := time.Since(rt.Now()); d < -time.Second || d > time.Second {
		t.Errorf("outside a run rt.Now is %v from the real clock", d)
	}
}
