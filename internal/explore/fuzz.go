package explore

import (
	"flag"
	"reflect"
	"testing"
)

// FuzzEntry explores body, a call of a fuzz function with one entry of the
// seed corpus, as a test: t is the entry's subtest (FuzzX/seed#0,
// FuzzX/FILE), and reports, events and schedules carry its name. args are
// the call's arguments: the contents of its []byte values are put back
// before each run, so that a run that changes its input does not change
// the next run's. An entry that -run or -skip does not select is not run;
// with -test.fuzz (the fuzzer's inputs, not a seed corpus) body runs
// natively.
func FuzzEntry(t *testing.T, body func(t *testing.T), args ...any) {
	t.Helper()
	if fuzzing() {
		body(t)
		return
	}
	if !subtestMatcher().Selects(t.Name()) {
		return
	}
	var saved [][]byte
	var bufs [][]byte
	for _, a := range args {
		if b, ok := a.([]byte); ok && b != nil {
			bufs = append(bufs, b)
			saved = append(saved, append([]byte(nil), b...))
		}
	}
	Test(t, func(t *testing.T) {
		for i, b := range bufs {
			copy(b, saved[i])
		}
		body(t)
	})
}

// FuzzFunc returns the function that f.Fuzz is given in place of ff, a fuzz
// function func(*testing.T, args...) that is not a function literal: one of
// the same type whose calls are explored (FuzzEntry). Any other ff is
// returned as it is, for f.Fuzz to refuse.
func FuzzFunc(ff any) any {
	v := reflect.ValueOf(ff)
	tType := reflect.TypeOf((*testing.T)(nil))
	if v.Kind() != reflect.Func || v.Type().NumIn() < 1 || v.Type().In(0) != tType || v.Type().NumOut() != 0 {
		return ff
	}
	return reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		t := args[0].Interface().(*testing.T)
		t.Helper()
		rest := make([]any, len(args)-1)
		for i, a := range args[1:] {
			rest[i] = a.Interface()
		}
		FuzzEntry(t, func(t *testing.T) {
			in := append([]reflect.Value{reflect.ValueOf(t)}, args[1:]...)
			v.Call(in)
		}, rest...)
		return nil
	}).Interface()
}

// fuzzing reports whether the test binary fuzzes (-test.fuzz): the
// fuzzer's inputs are not a seed corpus, and are not explored.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
