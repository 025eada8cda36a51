package engine

import (
	"testing"
	"time"
)

// TestDurationText checks that reports write durations as a person would:
// virtual time read off a clock that moved by polls and late wakes
// ("59.9999999s" after the test returned, "10.00002ms" of starvation)
// is rounded to three significant digits, with no trailing zeros.
func TestDurationText(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{1, "1ns"},
		{999, "999ns"},
		{1000, "1µs"},
		{1500, "1.5µs"},
		{49980, "50µs"},
		{999980, "1ms"},
		{1001000, "1ms"},
		{10000020, "10ms"},
		{12023020, "12ms"},
		{22024040, "22ms"},
		{123456789, "123ms"},
		{100 * time.Millisecond, "100ms"},
		{999999999, "1s"},
		{1500 * time.Millisecond, "1.5s"},
		{26699889020, "26.7s"},
		{53399997980, "53.4s"},
		{59999999900, "1m"},
		{59899999980, "59.9s"},
		{time.Minute, "1m"},
		{90 * time.Second, "1m30s"},
		{10*time.Minute + 400*time.Millisecond, "10m"},
		{10*time.Minute + 600*time.Millisecond, "10m1s"},
		{time.Hour, "1h"},
		{time.Hour + 5*time.Minute, "1h5m"},
		{time.Hour + 5*time.Minute + 30*time.Second, "1h5m30s"},
		{time.Hour + 5*time.Minute + 36*time.Second, "1h5m40s"},
		{25 * time.Hour, "25h"},
	} {
		if got := DurationText(c.d); got != c.want {
			t.Errorf("DurationText(%d) = %q, want %q", int64(c.d), got, c.want)
		}
	}
}
