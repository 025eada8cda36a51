//go:build go1.21

package maps121

// Before go1.22 the loop variables are shared by all iterations.
func f(m map[string]int, funcs *[]func() int) {
	for k, v := range m {
		*funcs = append(*funcs, func() int { return v + len(k) })
	}
	for _, v := range m {
		_ = v
	}
}
