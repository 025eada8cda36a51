//go:build go1.22

package rt

import (
	"encoding"
	randv2 "math/rand/v2"

	"heddle.dev/internal/engine"
)

// math/rand/v2 exists from Go 1.22 on; code that uses it needs Go 1.22 too.

// RandV2 is Rand for math/rand/v2.
func RandV2() *randv2.Rand {
	if x := engine.Current(); x != nil {
		return randv2.New(x.RandSource())
	}
	return defaultRandV2
}

// RandN replaces the generic function rand.N of math/rand/v2.
func RandN[Int ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(RandV2().Uint64N(uint64(n)))
}

// defaultRandV2 keeps the native behaviour outside an exploration.
var defaultRandV2 = randv2.New(v2Global{})

type v2Global struct{}

func (v2Global) Uint64() uint64 { return randv2.Uint64() }

// RandV2New replaces math/rand/v2.New(src) when src is a generator the
// call makes (NewPCG, NewChaCha8): as RandNewSource does for math/rand,
// the Rand draws from src in the run that made it from a seed that is not
// the clock's, and otherwise, in a run, from a state seeded from the run's
// random source when the run first draws from it; a generator made
// before the run from a fixed seed draws its numbers from the start in
// every run, as a test run alone in a new process draws them natively.
func RandV2New(src randv2.Source, clock bool) *randv2.Rand {
	s := &runSourceV2{native: src}
	if !clock {
		if m, ok := src.(encoding.BinaryMarshaler); ok {
			s.start, _ = m.MarshalBinary()
		}
		if x := engine.Current(); x != nil {
			s.owner = runIDOf(x)
		}
	}
	return randv2.New(s)
}

type runSourceV2 struct {
	native randv2.Source
	owner  uint64
	run    uint64
	cur    randv2.Source
	start  []byte // the state it was made with (PCG, ChaCha8), unless from the clock
}

// restart returns a generator of src's type in state, or nil.
func restart(src randv2.Source, state []byte) randv2.Source {
	switch src.(type) {
	case *randv2.PCG:
		p := new(randv2.PCG)
		if p.UnmarshalBinary(state) == nil {
			return p
		}
	case *randv2.ChaCha8:
		c := new(randv2.ChaCha8)
		if c.UnmarshalBinary(state) == nil {
			return c
		}
	}
	return nil
}

func (s *runSourceV2) Uint64() uint64 {
	x := engine.Current()
	if x == nil {
		return s.native.Uint64()
	}
	id := runIDOf(x)
	if id == s.owner {
		return s.native.Uint64()
	}
	if s.run != id || s.cur == nil {
		s.run = id
		if s.cur = nil; s.start != nil {
			s.cur = restart(s.native, s.start)
		}
		if s.cur == nil {
			src := x.RandSource()
			s.cur = randv2.NewPCG(src.Uint64(), src.Uint64())
		}
	}
	return s.cur.Uint64()
}
