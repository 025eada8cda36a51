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
