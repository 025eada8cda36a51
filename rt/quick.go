package rt

import (
	mathrand "math/rand"
	"reflect"

	"heddle.dev/internal/engine"
)

// QuickCheck replaces testing/quick.Check, called as QuickCheck(quick.Check,
// f, c). testing/quick draws its inputs from a generator seeded with the
// wall clock when c is nil or has no Rand: a test that uses it does
// something else under every run of one schedule, and heddle could not
// explore it. During an exploration, such a config gets a Rand over the
// run's source, seeded as the rewritten math/rand is (per run, and
// recorded in the schedule). (C is quick.Config: package rt does not
// import testing/quick, which registers a flag.)
func QuickCheck[C any](check func(any, *C) error, f any, c *C) error {
	return check(f, quickConfig(c))
}

// QuickCheckEqual replaces testing/quick.CheckEqual, as QuickCheck does
// Check.
func QuickCheckEqual[C any](check func(any, any, *C) error, f, g any, c *C) error {
	return check(f, g, quickConfig(c))
}

// quickConfig returns c, or during an exploration a copy of it whose Rand
// draws from the run's source if c is nil or its Rand is.
func quickConfig[C any](c *C) *C {
	x := engine.Current()
	if x == nil {
		return c
	}
	var cc C
	if c != nil {
		cc = *c
	}
	v := reflect.ValueOf(&cc).Elem()
	if v.Kind() != reflect.Struct {
		return c
	}
	r := v.FieldByName("Rand")
	if !r.IsValid() || !r.CanSet() || r.Type() != reflect.TypeOf((*mathrand.Rand)(nil)) || !r.IsNil() {
		return c
	}
	r.Set(reflect.ValueOf(mathrand.New(x.RandSource())))
	return &cc
}
