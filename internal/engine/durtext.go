package engine

import (
	"strconv"
	"strings"
	"time"
)

// DurationText writes d as a person would in a report: rounded to three
// significant digits, in the largest unit below it, with no trailing
// zeros ("60s", "1m30s", "10ms", "1.5µs"), where time.Duration's String
// writes every digit of virtual time ("59.9999999s of virtual time after
// the test returned", "the machine is never slower than 10.00002ms").
// From a minute on it rounds to the second, and leaves out zero
// components ("1m", "1h5m"). Durations under a microsecond keep their
// nanoseconds; 0 and less are "0s".
func DurationText(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	d = roundSignificant(d, 3)
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return decimalText(d, time.Microsecond) + "µs"
	case d < time.Second:
		return decimalText(d, time.Millisecond) + "ms"
	case d < time.Minute:
		return decimalText(d, time.Second) + "s"
	}
	d = d.Round(time.Second)
	s := d.String() // such as 1h5m0s
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// roundSignificant rounds d, which is positive, to n significant decimal
// digits.
func roundSignificant(d time.Duration, n int) time.Duration {
	unit := time.Duration(1)
	for x := d; x >= pow10(n); x /= 10 {
		unit *= 10
	}
	return (d + unit/2) / unit * unit
}

func pow10(n int) time.Duration {
	p := time.Duration(1)
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

// decimalText writes d in units of unit, with the decimals it has and no
// trailing zeros.
func decimalText(d, unit time.Duration) string {
	s := strconv.FormatInt(int64(d/unit), 10)
	frac := int64(d % unit)
	if frac == 0 {
		return s
	}
	digits := len(strconv.FormatInt(int64(unit), 10)) - 1
	f := strconv.FormatInt(frac, 10)
	f = strings.Repeat("0", digits-len(f)) + f
	return s + "." + strings.TrimRight(f, "0")
}
