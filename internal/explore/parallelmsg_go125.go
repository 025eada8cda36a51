//go:build !go1.26

package explore

// parallelConflict is package testing's panic for t.Parallel in a test
// that called t.Setenv or t.Chdir, or the reverse (Go 1.24 and 1.25's
// words; older versions said it otherwise).
const parallelConflict = "testing: test using t.Setenv or t.Chdir can not use t.Parallel"
