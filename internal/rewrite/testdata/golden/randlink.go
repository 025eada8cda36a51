package randlink

import (
	"hash/maphash"
	_ "unsafe" // for go:linkname
)

// Functions linknamed to the runtime's random number generators draw from
// the run's random source (puzpuzpuz/xsync's util.go).

//go:linkname runtime_cheaprand runtime.cheaprand
func runtime_cheaprand() uint32

//go:linkname cheaprand64 runtime.cheaprand64
func cheaprand64() int64

//go:linkname cheaprandn runtime.cheaprandn
func cheaprandn(n uint32) uint32

//go:noescape
//go:linkname fastrand runtime.fastrand
func fastrand() uint32

//go:linkname fastrandn runtime.fastrandn
func fastrandn(uint32) uint32

//go:linkname fastrand64 runtime.fastrand64
func fastrand64() uint64

//go:linkname runtimeRand runtime.rand
func runtimeRand() uint64

// Another signature is left alone.

//go:linkname fastrand8 runtime.fastrand
func fastrand8() uint8

// maphash.MakeSeed gives a seed of the run, in calls and as a value.
type table struct{ seed maphash.Seed }

func newTable() *table { return &table{seed: maphash.MakeSeed()} }

var makeSeed = maphash.MakeSeed

func Sum() uint64 {
	t := newTable()
	return maphash.String(t.seed, "x") + maphash.String(makeSeed(), "y") +
		uint64(runtime_cheaprand()) + uint64(cheaprand64()) + uint64(cheaprandn(4)) +
		uint64(fastrand()) + uint64(fastrandn(4)) + fastrand64() + runtimeRand() + uint64(fastrand8())
}
