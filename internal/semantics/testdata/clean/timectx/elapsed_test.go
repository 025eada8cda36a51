package timectx

import (
	"testing"
	"time"
)

// TestSleepPassesTheDeadline: natively time passes while code runs, so
// after time.Sleep(d) the clock is past start+d, never exactly on it (a
// circuit breaker that compares time.Now().After(lastError.Add(d)) relies
// on it).
func TestSleepPassesTheDeadline(t *testing.T) {
	start := time.Now()
	time.Sleep(10 * time.Millisecond)
	if !time.Now().After(start.Add(10 * time.Millisecond)) {
		t.Errorf("after a sleep of 10ms the clock is not past start+10ms: %v elapsed", time.Since(start))
	}
	a, b := time.Now(), time.Now()
	if !b.After(a) {
		t.Errorf("two reads of the clock gave %v and %v", a, b)
	}
}

// TestManyReadsAreQuick: a thousand reads of the clock take some tens of
// microseconds natively (ratelimit's TestUnlimited asserts under 1 ms).
func TestManyReadsAreQuick(t *testing.T) {
	start := time.Now()
	for i := 0; i < 1000; i++ {
		_ = time.Now()
	}
	if d := time.Since(start); d >= time.Millisecond {
		t.Errorf("1000 reads of the clock took %v", d)
	}
}
