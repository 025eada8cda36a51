//go:build go1.22

package rt

import (
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
