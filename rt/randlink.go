package rt

import (
	"hash/maphash"
	mathrand "math/rand"
	"reflect"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The runtime's randomness reached from rewritten code without math/rand:
// body-less functions linknamed to the runtime's generators
// (puzpuzpuz/xsync's `//go:linkname runtime_cheaprand runtime.cheaprand`
// picks the stripe of a counter with it), and hash/maphash.MakeSeed
// (xsync's Map seeds every table with it, so keys land in other buckets).
// Natively every run draws other numbers; in heddle two runs of one
// schedule would differ, and heddle could only call the test
// nondeterministic. So the rewriter gives those functions a body calling
// the ones below, and turns maphash.MakeSeed into MaphashMakeSeed: during
// an exploration they draw from the run's random source, the one
// math/rand's top-level functions draw from (seeded per run, recorded in
// its schedule), so the same schedule draws the same numbers, in the
// exploring process and in `heddle replay`. Outside a run they draw from
// math/rand's global generator, which the runtime seeds at random as it
// seeds its own.

// Cheaprand replaces a function linknamed to runtime.cheaprand or
// runtime.fastrand.
func Cheaprand() uint32 {
	if x := engine.Current(); x != nil {
		return uint32(x.RandSource().Uint64() >> 32)
	}
	return mathrand.Uint32()
}

// Cheaprand64 replaces a function linknamed to runtime.cheaprand64: a
// non-negative number, as the runtime's.
func Cheaprand64() int64 {
	if x := engine.Current(); x != nil {
		return x.RandSource().Int63()
	}
	return mathrand.Int63()
}

// Cheaprandn replaces a function linknamed to runtime.cheaprandn or
// runtime.fastrandn: a number in [0, n), computed from Cheaprand as the
// runtime computes it.
func Cheaprandn(n uint32) uint32 {
	return uint32(uint64(Cheaprand()) * uint64(n) >> 32)
}

// RuntimeRand replaces a function linknamed to runtime.rand or
// runtime.fastrand64.
func RuntimeRand() uint64 {
	if x := engine.Current(); x != nil {
		return x.RandSource().Uint64()
	}
	return mathrand.Uint64()
}

// MaphashMakeSeed replaces hash/maphash.MakeSeed. A Seed cannot be made
// from a number outside package maphash, but its layout has been one
// uint64, non-zero in a made seed, since Go 1.14 (maphash.go: `type Seed
// struct { s uint64 }`); seedIsUint64 checks that layout with reflect, and
// where it is another the native MakeSeed is called (heddle then calls the
// test nondeterministic, as before). The other way, a table of seeds the
// native MakeSeed makes once per process, indexed by a number the run
// draws, needs state shared by every run of the process, and gives a
// replay's new process other seeds (the cast gives it the same ones).
//
// A seed fixes the hashes of maphash's functions only within a process:
// except in a purego build they hash with the runtime's hash function,
// keyed at startup at random (and Comparable hashes pointers by address).
// So the same schedule hashes the same keys alike in the exploring
// process, and may hash them otherwise in a replay's process.
func MaphashMakeSeed() maphash.Seed {
	x := engine.Current()
	if x == nil || !seedIsUint64() {
		return maphash.MakeSeed()
	}
	src := x.RandSource()
	s := src.Uint64()
	for s == 0 {
		s = src.Uint64()
	}
	return *(*maphash.Seed)(unsafe.Pointer(&s))
}

// seedIsUint64 says whether maphash.Seed is a struct of one uint64.
func seedIsUint64() bool {
	t := reflect.TypeOf(maphash.Seed{})
	return t.Kind() == reflect.Struct && t.Size() == 8 && t.NumField() == 1 &&
		t.Field(0).Type.Kind() == reflect.Uint64 && t.Field(0).Offset == 0
}

// Memhash replaces a function linknamed to runtime.memhash, the runtime's
// hash of the s bytes at p from seed h, keyed by a random key of the
// process (dgraph-io/ristretto's z.MemHash hashes its keys with it, which
// decides their shards and the policy's admissions): a schedule found in
// one process diverged when `heddle replay` ran it in another. Memhash is
// the same function in every process, in a run or not (a hash computed at
// init must equal one computed in a run): FNV-1a from h, then
// splitmix64's finalizer to spread the bits, as any seed of the runtime's
// may.
func Memhash(p unsafe.Pointer, h, s uintptr) uintptr {
	x := uint64(h) ^ 14695981039346656037
	if s > 0 {
		for _, b := range unsafe.Slice((*byte)(p), s) {
			x ^= uint64(b)
			x *= 1099511628211
		}
	}
	x ^= uint64(s)
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return uintptr(x ^ (x >> 31))
}
