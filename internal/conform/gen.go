package conform

import (
	"fmt"
	"go/format"
	"math/rand"
	"sort"
	"strings"
)

// The generator writes small straight-line test programs in plain Go, in
// the spirit of the DPOR sweep's generator (internal/strategy/gen_test.go,
// which writes calls to heddle's runtime and so cannot run natively): 2 or
// 3 goroutines and the test goroutine, each doing a few operations among
// critical sections (Mutex, TryLock, RWMutex) on shared variables and a
// map, atomics, rendezvous on an unbuffered channel, a buffered channel
// received from with select (with default, a context's Done, or a timer),
// non-blocking sends and receives that race their partner's arrival, a Cond
// with a predicate, an inner WaitGroup, a Once, a context canceled early
// or at the end, and, in one program in four, racy check-then-act and
// read-modify-write on a plain variable. Every goroutine logs what it
// observed; the test joins them and reports the logs and the final state
// with t.Errorf, so that each outcome names what a schedule did.

type generator struct {
	r     *rand.Rand
	val   int
	uses  map[string]bool
	gs    [][]string // gs[0] is the test goroutine's
	c1    int        // sends on c1 (its capacity)
	wg2   int        // Done calls on wg2
	racy  bool
	heavy bool            // a racy program where half the operations race
	reads map[string]bool // final values reported
}

func (g *generator) next() int { g.val++; return g.val }

func (g *generator) other(i int) int {
	j := g.r.Intn(len(g.gs) - 1)
	if j >= i {
		j++
	}
	return j
}

func (g *generator) add(i int, cost int, lines ...string) int {
	g.gs[i] = append(g.gs[i], lines...)
	return cost
}

// op adds one random operation (and its partner, if it has one) to
// goroutine i and returns its cost.
func (g *generator) op(i int) int {
	gv := i + 1 // a goroutine's own small constant
	if g.heavy && g.r.Intn(2) == 0 {
		return g.racyOp(i, gv)
	}
	switch k := g.r.Intn(17); k {
	case 0, 1:
		g.uses["mu"], g.reads["x"] = true, true
		return g.add(i, 2, "mu.Lock()", fmt.Sprintf("x += %d", gv), "l = append(l, x)", "mu.Unlock()")
	case 2:
		g.uses["mu"], g.reads["x"] = true, true
		return g.add(i, 2, "if mu.TryLock() {", fmt.Sprintf("x += %d", 10*gv), "l = append(l, x)", "mu.Unlock()", "} else {", "l = append(l, -1)", "}")
	case 3:
		g.uses["rw"] = true
		if g.r.Intn(2) == 0 {
			return g.add(i, 2, "rw.RLock()", "l = append(l, y)", "rw.RUnlock()")
		}
		g.reads["y"] = true
		return g.add(i, 2, "rw.Lock()", fmt.Sprintf("y += %d", gv), "rw.Unlock()")
	case 4:
		g.uses["mu"], g.uses["m"], g.reads["m"] = true, true, true
		return g.add(i, 2, "mu.Lock()", fmt.Sprintf("m[%d] += %d", g.r.Intn(2), gv), "l = append(l, len(m))", "mu.Unlock()")
	case 5:
		g.uses["a"], g.reads["a"] = true, true
		return g.add(i, 1, fmt.Sprintf("l = append(l, int(a.Add(%d)))", gv))
	case 6, 7:
		// A rendezvous: a send here, a receive in another goroutine.
		g.uses["c0"] = true
		pc := g.add(g.other(i), 1, "l = append(l, <-c0)")
		return pc + g.add(i, 1, fmt.Sprintf("c0 <- %d", g.next()))
	case 8:
		// A send on the buffered channel (it never blocks) and, elsewhere,
		// a receive that gives up when the context is canceled.
		g.uses["c1"], g.uses["ctx"] = true, true
		g.c1++
		pc := g.add(g.other(i), 1, "select {", "case v := <-c1:", "l = append(l, v)", "case <-ctx.Done():", "l = append(l, -3)", "}")
		return pc + g.add(i, 1, fmt.Sprintf("c1 <- %d", g.next()))
	case 9:
		// A send on the buffered channel and, elsewhere, a poll.
		g.uses["c1"] = true
		g.c1++
		pc := g.add(g.other(i), 1, "select {", "case v := <-c1:", "l = append(l, v)", "default:", "l = append(l, -2)", "}")
		return pc + g.add(i, 1, fmt.Sprintf("c1 <- %d", g.next()))
	case 10:
		// A non-blocking send on the unbuffered channel c2, and a
		// receive from it that gives up when the context is canceled:
		// the send succeeds only if the receiver has arrived.
		g.uses["c2"], g.uses["ctx"] = true, true
		pc := g.add(g.other(i), 1, "select {", "case v := <-c2:", "l = append(l, v)", "case <-ctx.Done():", "l = append(l, -3)", "}")
		return pc + g.add(i, 1, "select {", fmt.Sprintf("case c2 <- %d:", g.next()), "l = append(l, 1)", "default:", "l = append(l, 0)", "}")
	case 11:
		// A send on the buffered channel and, elsewhere, a receive with a
		// timeout.
		g.uses["c1"], g.uses["time"] = true, true
		g.c1++
		pc := g.add(g.other(i), 1, "select {", "case v := <-c1:", "l = append(l, v)", "case <-time.After(time.Millisecond):", "l = append(l, -4)", "}")
		return pc + g.add(i, 1, fmt.Sprintf("c1 <- %d", g.next()))
	case 12:
		// A Cond: a waiter with a predicate here, the signaller elsewhere.
		if g.uses["cond"] {
			return 0
		}
		g.uses["mu"], g.uses["cond"], g.reads["x"] = true, true, true
		pc := g.add(g.other(i), 2, "mu.Lock()", "flag = true", "cond.Broadcast()", "mu.Unlock()")
		return pc + g.add(i, 3, "mu.Lock()", "for !flag {", "cond.Wait()", "}", "l = append(l, x)", "mu.Unlock()")
	case 13:
		// An inner WaitGroup: Done here, Wait elsewhere.
		g.uses["wg2"] = true
		g.wg2++
		pc := g.add(g.other(i), 1, "wg2.Wait()")
		return pc + g.add(i, 1, "wg2.Done()")
	case 14:
		g.uses["once"], g.reads["first"] = true, true
		return g.add(i, 1, fmt.Sprintf("once.Do(func() { first = %d })", gv))
	case 15:
		// The context canceled early, and its state observed.
		g.uses["ctx"] = true
		if g.r.Intn(2) == 0 {
			return g.add(i, 1, "cancel()")
		}
		return g.add(i, 1, "if ctx.Err() != nil {", "l = append(l, -5)", "}")
	}
	if !g.racy {
		return 0
	}
	return g.racyOp(i, gv)
}

// racyOp adds unsynchronized accesses (a data race) to goroutine i.
func (g *generator) racyOp(i, gv int) int {
	if !g.heavy {
		g.uses["z"], g.reads["z"] = true, true
		switch g.r.Intn(3) {
		case 0:
			return g.add(i, 1, "if z == 0 {", fmt.Sprintf("z = %d", gv), "}")
		case 1:
			return g.add(i, 1, "l = append(l, z)")
		}
		return g.add(i, 1, "z++")
	}
	// Heavy: each access comes with a conflicting one in another
	// goroutine, so that every racy operation races.
	g.uses["z"], g.reads["z"] = true, true
	shape := func(gv int, k int) []string {
		switch k {
		case 0:
			return []string{"if z == 0 {", fmt.Sprintf("z = %d", gv), "}"}
		case 1:
			return []string{"l = append(l, z)"}
		case 2:
			return []string{"z++"}
		case 3:
			return []string{fmt.Sprintf("z = %d", 10*gv)}
		}
		// A read-modify-write whose read is locked and write is not.
		g.uses["mu"] = true
		return []string{"{", "mu.Lock()", "v := z", "mu.Unlock()", "z = v + 1", "}"}
	}
	if g.r.Intn(5) == 0 {
		// Message passing without synchronization: data, then a flag
		// here; the flag, then data in another goroutine.
		g.uses["pub"], g.reads["d"] = true, true
		pc := g.add(g.other(i), 1, "if f == 1 {", "l = append(l, d)", "} else {", "l = append(l, -6)", "}")
		return pc + g.add(i, 1, fmt.Sprintf("d = %d", g.next()), "f = 1")
	}
	j := g.other(i)
	a, b := g.r.Intn(5), g.r.Intn(5)
	if a == 1 && b == 1 {
		b = 2 // two reads do not race
	}
	pc := g.add(j, 1, shape(j+1, b)...)
	return pc + g.add(i, 1, shape(gv, a)...)
}

// Generate writes the program of seed: a file gen<seed>_test.go declaring
// TestGen<seed>.
func Generate(seed int64) (*File, error) {
	return generate(seed, false)
}

// GenerateRacy writes the racy program of seed, where about half the
// operations are unsynchronized accesses to shared variables (racy
// check-then-act, read-modify-write, plain writes, message passing by a
// flag): a file racy<seed>_test.go declaring TestRacy<seed>. In the
// programs of Generate only one in four is racy, and few of those race.
func GenerateRacy(seed int64) (*File, error) {
	return generate(seed, true)
}

func generate(seed int64, heavy bool) (*File, error) {
	rs := rand.NewSource(seed)
	if heavy {
		rs = rand.NewSource(seed + 1<<32) // its own stream
	}
	g := &generator{r: rand.New(rs), uses: map[string]bool{}, reads: map[string]bool{}}
	nG := 2
	if g.r.Intn(4) == 0 {
		nG = 3
	}
	g.gs = make([][]string, nG+1)
	g.racy = heavy || seed%4 == 0
	g.heavy = heavy
	budget := 3 + g.r.Intn(3)
	if nG == 3 {
		budget--
	}
	if heavy {
		i := 1 + g.r.Intn(nG)
		budget -= g.racyOp(i, i+1) // at least one race
	}
	for budget > 0 {
		i := 1 + g.r.Intn(nG)
		if g.r.Intn(5) == 0 {
			i = 0
		}
		budget -= g.op(i)
	}
	name, file := fmt.Sprintf("TestGen%04d", seed), fmt.Sprintf("gen%04d_test.go", seed)
	if heavy {
		name, file = fmt.Sprintf("TestRacy%04d", seed), fmt.Sprintf("racy%04d_test.go", seed)
	}
	var b strings.Builder
	b.WriteString("package " + PackageName + "\n\nimport (\n")
	imports := []string{"sync", "testing"}
	if g.uses["ctx"] {
		imports = append(imports, "context")
	}
	if g.uses["a"] {
		imports = append(imports, "sync/atomic")
	}
	if g.uses["time"] {
		imports = append(imports, "time")
	}
	sort.Strings(imports)
	for _, im := range imports {
		fmt.Fprintf(&b, "\t%q\n", im)
	}
	b.WriteString(")\n\n")
	tags := "generated"
	if g.racy {
		tags += " racy"
	}
	fmt.Fprintf(&b, "// %s is generated from seed %d by heddle.dev/internal/conform.\n//\n// conform: %s\nfunc %s(t *testing.T) {\n", name, seed, tags, name)
	decl := map[string]string{
		"mu":    "var mu sync.Mutex",
		"rw":    "var rw sync.RWMutex\ny := 0",
		"m":     "m := map[int]int{}",
		"a":     "var a atomic.Int32",
		"c0":    "c0 := make(chan int)",
		"c1":    fmt.Sprintf("c1 := make(chan int, %d)", g.c1),
		"c2":    "c2 := make(chan int)",
		"cond":  "cond := sync.NewCond(&mu)\nflag := false",
		"wg2":   fmt.Sprintf("var wg2 sync.WaitGroup\nwg2.Add(%d)", g.wg2),
		"once":  "var once sync.Once\nfirst := 0",
		"z":     "z := 0",
		"pub":   "d, f := 0, 0",
		"ctx":   "ctx, cancel := context.WithCancel(context.Background())\n_ = ctx",
		"x_def": "x := 0",
	}
	if g.reads["x"] {
		b.WriteString(decl["x_def"] + "\n")
	}
	for _, k := range []string{"mu", "rw", "m", "a", "c0", "c1", "c2", "cond", "wg2", "once", "z", "pub", "ctx"} {
		if g.uses[k] {
			b.WriteString(decl[k] + "\n")
		}
	}
	fmt.Fprintf(&b, "var wg sync.WaitGroup\nlogs := make([][]int, %d)\n", nG+1)
	for i := 1; i <= nG; i++ {
		fmt.Fprintf(&b, "wg.Add(1)\ngo func() {\ndefer wg.Done()\nvar l []int\n%s\nlogs[%d] = l\n}()\n", strings.Join(g.gs[i], "\n"), i)
	}
	fmt.Fprintf(&b, "{\nvar l []int\n%s\nlogs[0] = l\n}\n", strings.Join(g.gs[0], "\n"))
	if g.uses["ctx"] {
		b.WriteString("cancel()\n")
	}
	b.WriteString("wg.Wait()\n")
	msg, args := "logs=%v", "logs"
	for _, k := range []string{"x", "y", "m", "a", "first", "z", "d"} {
		if !g.reads[k] {
			continue
		}
		v := k
		if k == "a" {
			v = "a.Load()"
		}
		msg += " " + k + "=%v"
		args += ", " + v
	}
	fmt.Fprintf(&b, "t.Errorf(%q, %s)\n}\n", msg, args)
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("generated program %d: %v\n%s", seed, err, b.String())
	}
	return ParseFile(file, src)
}
