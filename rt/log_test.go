package rt_test

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"heddle.dev/rt"
)

// twoLoggers explores two goroutines that each log one entry with logf,
// and returns the orders of the entries in buf that optimal DPOR reached.
func twoLoggers(t *testing.T, buf *bytes.Buffer, logf func(string)) string {
	t.Helper()
	return odporOutcomes(t, func() string {
		buf.Reset()
		done := rt.MakeChan[chan struct{}](0)
		for _, s := range []string{"a", "b"} {
			s := s
			rt.Go(func() {
				logf(s)
				rt.Send(done, struct{}{})
			})
		}
		rt.Recv(done)
		rt.Recv(done)
		return strings.Join(strings.Fields(buf.String()), " ")
	})
}

// Two goroutines log through one log.Logger: optimal DPOR reaches both
// orders of their entries (conform TestLoggerTwoGoroutines). Before a log
// entry was a step, the log calls were invisible to it and independent:
// one run, "a b" only, "exhausted".
func TestLoggerEntriesAreSteps(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	if got, want := twoLoggers(t, &buf, func(s string) { rt.LoggerW(l).Print(s) }), "a b | b a"; got != want {
		t.Errorf("Logger.Print: outcomes %s, want %s", got, want)
	}
}

// The same through the package's standard logger (log.Printf).
func TestLogPrintfIsAStep(t *testing.T) {
	var buf bytes.Buffer
	w, flags := log.Writer(), log.Flags()
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer func() {
		log.SetOutput(w)
		log.SetFlags(flags)
	}()
	if got, want := twoLoggers(t, &buf, func(s string) { rt.LogPrintf("%s", s) }), "a b | b a"; got != want {
		t.Errorf("log.Printf: outcomes %s, want %s", got, want)
	}
}

// A goroutine changes a logger's prefix while another logs: optimal DPOR
// reaches both prefixes (conform TestLoggerSetPrefixVsPrint). Before, the
// prefix (an atomic of package log) was set without a step: one run, the
// old prefix only.
func TestLoggerSetPrefixIsAStep(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	got := odporOutcomes(t, func() string {
		buf.Reset()
		l.SetPrefix("old ")
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.LoggerW(l).SetPrefix("new ")
			rt.Send(done, struct{}{})
		})
		rt.LoggerW(l).Print("x")
		rt.Recv(done)
		return strings.TrimSpace(buf.String())
	})
	if want := "new x | old x"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
