package explore

import (
	"strconv"
	"strings"
	"testing"
)

func TestEnclosingFunc(t *testing.T) {
	for _, c := range []struct{ lit, want string }{
		{"example.com/app.F.func2", "example.com/app.F"},
		{"example.com/app.F.func1.3", "example.com/app.F.func1"},
		{"example.com/app.(*T).M.func1", "example.com/app.(*T).M"},
		{"example.com/app.init.func1", "example.com/app.init"},
		{"example.com/app.F", "example.com/app.F"},
		{"example.com/app.functional", "example.com/app.functional"},
	} {
		if got := enclosingFunc(c.lit); got != c.want {
			t.Errorf("enclosingFunc(%q) = %q, want %q", c.lit, got, c.want)
		}
	}
}

func TestWithID(t *testing.T) {
	blk := "goroutine 12 [chan receive]:\nexample.com/app.f()\n\tf.go:3 +0x1"
	if id := blockID(blk); id != 12 {
		t.Errorf("blockID = %d, want 12", id)
	}
	want := "goroutine 4294967310 [chan receive]:\nexample.com/app.f()\n\tf.go:3 +0x1"
	if got := withID(blk, 4294967310); got != want {
		t.Errorf("withID = %q, want %q", got, want)
	}
}

func TestTestBodyName(t *testing.T) {
	for _, c := range []struct{ fn, want string }{
		{"example.com/app.TestX.func1", "example.com/app.TestX"},
		{"example.com/app.TestX.func1.2", "example.com/app.TestX.func2"},
		{"example.com/app.TestX.func1.2.1", "example.com/app.TestX.func2.1"},
		{"example.com/a.b/app.Test.func1.1", "example.com/a.b/app.Test.func1"},
		{"example.com/app.TestX.func12", "example.com/app.TestX.func12"},
		{"example.com/app.Testing.func1", "example.com/app.Testing.func1"},
		{"example.com/app.helper.func1", "example.com/app.helper.func1"},
		{"example.com/app.(*S).TestX.func1", "example.com/app.(*S).TestX.func1"},
		{"example.com/app.TestX", "example.com/app.TestX"},
	} {
		if got := testBodyName(c.fn); got != c.want {
			t.Errorf("testBodyName(%q) = %q, want %q", c.fn, got, c.want)
		}
	}
	blk := "goroutine 5 [running]:\nexample.com/app.TestX.func1.1()\n\tx_test.go:3 +0x1\ncreated by example.com/app.TestX.func1 in goroutine 4\n\tx_test.go:2 +0x0"
	want := "goroutine 5 [running]:\nexample.com/app.TestX.func1()\n\tx_test.go:3 +0x1\ncreated by example.com/app.TestX in goroutine 4\n\tx_test.go:2 +0x0"
	if got := nativeNames(blk); got != want {
		t.Errorf("nativeNames:\n%s\nwant:\n%s", got, want)
	}
}

func TestHeddleSignals(t *testing.T) {
	watchInterrupt()
	if got := interruptGoid.Load(); got == 0 {
		t.Fatal("watchInterrupt recorded no goroutine")
	}
	id := strconv.FormatInt(interruptGoid.Load(), 10)
	heddles := "goroutine 5 [syscall]:\nos/signal.signal_recv()\n\tsigqueue.go:152 +0x98\nos/signal.loop()\n\tsignal_unix.go:23 +0x13\ncreated by os/signal.Notify.func1.1 in goroutine " + id + "\n\tsignal.go:152 +0x1f"
	if !heddleSignals(heddles) {
		t.Errorf("heddle's os/signal goroutine not recognized:\n%s", heddles)
	}
	other := strings.Replace(heddles, "in goroutine "+id, "in goroutine "+id+"1", 1)
	if heddleSignals(other) {
		t.Errorf("the program's os/signal goroutine taken for heddle's:\n%s", other)
	}
}

func TestNativeFuncName(t *testing.T) {
	for _, c := range []struct{ fn, want string }{
		{"example.com/app.TestX.func1", "example.com/app.TestX"},
		{"example.com/app.TestX.func1.1", "example.com/app.TestX.func1"},
		{"example.com/app.helper", "example.com/app.helper"},
		{"", ""},
	} {
		if got := NativeFuncName(c.fn); got != c.want {
			t.Errorf("NativeFuncName(%q) = %q, want %q", c.fn, got, c.want)
		}
	}
}
