package strategy

import "math/bits"

// rng is a small deterministic generator (PCG-XSL-RR 128/64, as in
// math/rand/v2's PCG) for the strategies. It is here rather than
// math/rand/v2 because the runtime bundle must build with Go 1.21.
type rng struct{ hi, lo uint64 }

func newRNG(seed1, seed2 uint64) *rng { return &rng{hi: seed1, lo: seed2} }

func (r *rng) next() uint64 {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	hi, lo := bits.Mul64(r.lo, mulLo)
	hi += r.hi*mulLo + r.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	r.lo, r.hi = lo, hi
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> (64 - 16)
	hi *= lo | 1
	return hi
}

// Uint64 returns a uniformly random uint64.
func (r *rng) Uint64() uint64 { return r.next() }

// IntN returns a uniform int in [0, n); n must be positive.
func (r *rng) IntN(n int) int {
	if n <= 0 {
		panic("strategy: IntN of non-positive n")
	}
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// Float64 returns a uniform float64 in [0, 1).
func (r *rng) Float64() float64 { return float64(r.next()<<11>>11) / (1 << 53) }
