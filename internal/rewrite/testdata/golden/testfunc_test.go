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
