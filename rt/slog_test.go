package rt_test

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"heddle.dev/rt"
)

// noTime drops the time of slog's text records, so that entries compare.
func noTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

// Two goroutines log through loggers derived from one slog.Logger (their
// handlers share a lock and a writer of package slog): optimal DPOR
// reaches both orders of their entries (conform TestSlogTwoGoroutines,
// TestSlogDerivedLoggers). Before a slog entry was a step, one run, one
// order, "exhausted".
func TestSlogEntriesAreSteps(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime}))
	la, lb := l.With("k", 1), l.WithGroup("g")
	got := twoLoggers(t, &buf, func(s string) {
		if s == "a" {
			rt.SlogLoggerInfo(la, s)
		} else {
			rt.SlogLoggerLogAttrs(lb, context.Background(), slog.LevelWarn, s)
		}
	})
	if want := "level=INFO msg=a k=1 level=WARN msg=b | level=WARN msg=b level=INFO msg=a k=1"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// An entry below the handler's level writes nothing and is no step: the
// two goroutines' Debug calls stay independent (one run).
func TestSlogDisabledIsNoStep(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime}))
	if got, want := twoLoggers(t, &buf, func(s string) { rt.SlogLoggerDebug(l, s) }), ""; got != want {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}

// The package's functions log through the default logger, as a step, and
// the record's source is the caller of the rt function, as slog's own is
// the caller of slog.Info.
func TestSlogDefaultSource(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{AddSource: true, ReplaceAttr: noTime})))
	defer slog.SetDefault(prev)
	rt.SlogInfo("here") // logged at this line
	_, _, line, _ := runtime.Caller(0)
	if want := "slog_test.go:" + strconv.Itoa(line-1) + " msg=here"; !strings.Contains(buf.String(), want) {
		t.Errorf("logged %q, want it to contain %q", buf.String(), want)
	}
	buf.Reset()
	got := twoLoggers(t, &buf, func(s string) { rt.SlogWarn(s) })
	if n := strings.Count(got, "|"); n != 1 {
		t.Errorf("slog.Warn from two goroutines: outcomes %s, want 2", got)
	}
}

// A goroutine installs a default slog logger while another logs with
// slog.Info: optimal DPOR reaches both loggers (conform
// TestSlogSetDefaultVsInfo). Before, SetDefault was no step: one run,
// the old logger only.
func TestSlogSetDefaultIsAStep(t *testing.T) {
	var a, b bytes.Buffer
	prev := slog.Default()
	defer slog.SetDefault(prev)
	la := slog.New(slog.NewTextHandler(&a, &slog.HandlerOptions{ReplaceAttr: noTime}))
	lb := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: noTime}))
	got := odporOutcomes(t, func() string {
		a.Reset()
		b.Reset()
		slog.SetDefault(la)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.SlogSetDefault(lb)
			rt.Send(done, struct{}{})
		})
		rt.SlogInfo("x")
		rt.Recv(done)
		return "old " + strings.TrimSpace(a.String()) + " new " + strings.TrimSpace(b.String())
	})
	if want := "old  new level=INFO msg=x | old level=INFO msg=x new "; got != want {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}
