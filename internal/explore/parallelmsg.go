//go:build go1.26

package explore

// parallelConflict is package testing's panic for t.Parallel in a test
// that called t.Setenv or t.Chdir, or the reverse (Go 1.26's words).
const parallelConflict = "testing: test using t.Setenv, t.Chdir, or cryptotest.SetGlobalRandom can not use t.Parallel"
