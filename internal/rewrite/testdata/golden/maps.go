package maps

func f(m map[string]int, funcs *[]func() int) int {
	total := 0
	for k, v := range m {
		total += len(k) + v
		*funcs = append(*funcs, func() int { return v })
	}
	for k := range m {
		delete(m, k)
	}
	for range m {
		total++
	}
	for _, v := range m {
		v := v * 2
		total += v
	}
	var k string
	var v int
	for k, v = range m {
	}
	_, _ = k, v
	type named map[int]bool
	n := named{1: true}
outer:
	for i, b := range n {
		for range m {
			if b {
				continue outer
			}
			break outer
		}
		_ = i
	}
	for i := range 3 {
		total += i
	}
	return total
}
