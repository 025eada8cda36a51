package slogexpvar

import (
	"context"
	"expvar"
	"fmt"
	"log/slog"
	"os"
)

// A slog entry is a step (the Logger's methods and the package's
// functions that log), and expvar's methods are atomic accesses of their
// variable.

func f(ctx context.Context, l *slog.Logger, v slog.Logger) {
	l.Info("x", "k", 1)
	l.DebugContext(ctx, "y")
	l.LogAttrs(ctx, slog.LevelWarn, "z", slog.Int("n", 2))
	v.Error("w")
	slog.Info("a")
	slog.Log(ctx, slog.LevelError, "b")
	_ = l.With("k", 2).Handler()
	slog.SetDefault(l)
	info, warn := l.Info, slog.Warn
	info("m")
	warn("n")
}

func g(i *expvar.Int, s expvar.String, m *expvar.Map, fl *expvar.Float) {
	if i.Value() == 0 {
		i.Add(1)
	}
	s.Set("x")
	_ = s.Value()
	m.Add("k", 1)
	_ = m.Get("k")
	m.Do(func(expvar.KeyValue) {})
	fl.Set(1.5)
	_ = fl.String()
}

// The environment's functions are steps.
func h() string {
	os.Setenv("K", "v")
	defer os.Unsetenv("K")
	v, _ := os.LookupEnv("K")
	os.Chdir("/")
	wd, _ := os.Getwd()
	v += wd
	return v + os.Getenv("K") + os.ExpandEnv("$K")
}

// An os.File's reads, writes and seeks are steps; fmt.Fprint to it is not.
func k(f *os.File, b []byte) {
	f.Write(b)
	f.WriteString("x")
	f.Seek(0, 0)
	f.Read(b)
	_ = f.Name()
	fmt.Fprint(f, "y")
	f.Close()
}
