package rand

import (
	"math/rand"
	randv2 "math/rand/v2"
	"time"
)

func f(r *rand.Rand, xs []int) int {
	n := rand.Intn(10) + int(rand.Int63()) + rand.Int()
	rand.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	_ = rand.Float64()
	local := rand.New(rand.NewSource(1))
	n += local.Intn(3) + r.Intn(4)
	n += randv2.IntN(5) + int(randv2.Uint64()>>1)
	n += randv2.N(7)
	d := randv2.N(time.Second)
	_ = d
	_ = randv2.Perm(3)
	return n
}

// Sources the program makes: a package generator seeded from the clock,
// one with a fixed seed, math/rand/v2 generators.
var generator = rand.New(rand.NewSource(time.Now().UnixNano()))

func g() int {
	fixed := rand.New(rand.NewSource(42))
	since := rand.NewSource(int64(time.Since(time.Time{})))
	pcg := randv2.New(randv2.NewPCG(uint64(time.Now().UnixNano()), 1))
	chacha := randv2.New(randv2.NewChaCha8([32]byte{}))
	src := randv2.NewPCG(1, 2)
	other := randv2.New(src) // not made in the call: left alone
	return generator.Intn(2) + fixed.Intn(2) + int(since.Int63()) + pcg.IntN(2) + chacha.IntN(2) + other.IntN(2)
}
