package rt_test

import (
	"fmt"
	"runtime"
	"testing"

	"heddle.dev/rt"
)

// TestPanicChainMessage: a goroutine that dies of a panic raised while an
// earlier one unwound is reported with Go's words: every panic of the
// chain, the earliest first (runtime.printpanics; conform
// TestPanicInDeferUnrecovered and TestRepanicDifferentValue: natively
// "panic: first" and "panic: boom [recovered]" on the first line in every
// run, where heddle said "second" and "again after boom").
func TestPanicChainMessage(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"deferred panic", func() {
			defer func() { panic("second") }()
			panic("first")
		}, "first\n\tpanic: second"},
		{"repanic another value", func() {
			defer func() {
				r := recover()
				panic(fmt.Sprint("again after ", r))
			}()
			panic("boom")
		}, "boom\n\tpanic: again after boom"},
		{"repanic the same value", func() {
			defer func() { panic(recover()) }()
			panic("boom")
		}, "boom"},
		{"panic during Goexit", func() {
			defer func() { panic("in defer") }()
			runtime.Goexit()
		}, "in defer"},
		{"one panic", func() { panic("alone") }, "alone"},
		{"recovered before", func() {
			func() {
				defer func() { recover() }()
				panic("gone")
			}()
			panic("later")
		}, "later"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, bugs := exhaustControlled(t, func() string {
				rt.Go(c.f)
				rt.Recv(rt.MakeChan[chan bool](0))
				return ""
			})
			if got := bugs["panic"]; got != c.want {
				t.Errorf("panic message %q, want %q (bugs %v)", got, c.want, bugs)
			}
			if c.name == "panic during Goexit" {
				return // the run's root goroutine ending by Goexit is no panic
			}
			_, bugs = exhaustControlled(t, func() string {
				c.f()
				return ""
			})
			if got := bugs["panic"]; got != c.want {
				t.Errorf("in the root goroutine: panic message %q, want %q (bugs %v)", got, c.want, bugs)
			}
		})
	}
}
