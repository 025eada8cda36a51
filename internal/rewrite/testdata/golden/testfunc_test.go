package testfunc

import (
	"testing"
)

type helper struct {
	*testing.T
}

func check(tb testing.TB, ok bool) {
	tb.Helper()
	if !ok {
		tb.Fatalf("not ok: %v", ok)
	}
}

func TestThing(t *testing.T) {
	t.Parallel()
	t.Log("start")
	check(t, true)
	t.Cleanup(func() {})
	dir := t.TempDir()
	_ = dir
	t.Run("sub", func(t *testing.T) {
		t.Errorf("%s", t.Name())
		if t.Failed() {
			return
		}
	})
	h := helper{t}
	h.Logf("via %s", "embedding")
	logf := t.Logf
	logf("method value %d", 1)
	if testing.Short() {
		t.Skip("short")
	}
	_, _ = t.Deadline()
	_ = testing.AllocsPerRun(10, func() {})
}

func TestUnnamed(*testing.T) {}

func TestBlank(_ *testing.T) {
	return
}

func TestMain(m *testing.M) { m.Run() }

func Testlower(t *testing.T) {}

func BenchmarkX(b *testing.B) {
	b.Log("left alone")
}

func helperNotTest(t *testing.T) {
	t.Helper()
}

// runner and parallel are interfaces of a helper library over
// *testing.T (testify's suite, testscript's T): Run and Parallel through
// them go to rt's RunAny and ParallelAny.
type runner interface {
	Run(name string, f func(t *testing.T)) bool
}

type parallel interface{ Parallel() }

// notRunner's Run has another signature: left alone.
type notRunner interface {
	Run(name string) bool
}

func TestThroughInterfaces(t *testing.T) {
	var r runner = t
	r.Run("sub", func(t *testing.T) {})
	var p parallel = t
	p.Parallel()
	var n notRunner
	if n != nil {
		n.Run("x")
	}
}
