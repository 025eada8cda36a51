package rt_test

import (
	"reflect"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// sync.Once has value semantics: assigning a fresh Once arms it again, and
// a copy of a done Once is done.
func TestOnceValueSemantics(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	var calls, copyCalls int
	res := engine.Run(engine.Config{}, s, func() {
		var once sync.Once
		rt.OnceDo(&once, func() { calls++ })
		rt.OnceDo(&once, func() { calls++ })
		var done sync.Once // a copy of once, made as vet does not object to
		reflect.ValueOf(&done).Elem().Set(reflect.ValueOf(&once).Elem())
		rt.OnceDo(&done, func() { copyCalls++ })
		once = sync.Once{}
		rt.OnceDo(&once, func() { calls++ })
		rt.OnceDo(&once, func() { calls++ })
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if calls != 2 {
		t.Errorf("f ran %d times, want 2: once before and once after once = sync.Once{}", calls)
	}
	if copyCalls != 0 {
		t.Errorf("a copy of a done Once ran f %d times", copyCalls)
	}
}
