// Package semantics is heddle's semantics suite: small modules under
// testdata that use every construct the rewriter handles (the list in
// internal/rewrite's package documentation), written the ways real code
// writes them. semantics_test.go runs each clean module natively (go test
// must pass) and under heddle test (no report may come), and the seeded
// module under heddle test, where every bug must be found with the kind its
// test's name ends with.
//
//   - testdata/clean: one package per group of constructs: chans,
//     syncs, atomics, timectx, timers (go1.23+ timer channels), imports
//     (aliased and dot imports, shadowed names), generics, iters
//     (range-over-func, iter.Pull), initgo (go in init), misc (runtime,
//     maps, math/rand), testmain, subtests, pipes (io.Pipe, net.Pipe,
//     os.Pipe, which block in code heddle does not rewrite); examples,
//     benchmarks and fuzz
//     targets run natively.
//     deps uses testdata/dep, a module with no go line (replaced by a
//     directory), which heddle copies and rewrites.
//   - testdata/oldtimers: timers under a go line before go1.23.
//   - testdata/seeded: bugs, named Test<Name>_<kind>.
//
// Tests heddle still gets wrong are listed, with the reason, in knownWrong
// in semantics_test.go; a listed test that passes fails the suite, so that
// the list shrinks as fixes land. TestCoverage checks that every construct
// of the rewriter's list, and every way of writing one that issue 11 names,
// is used by a test of the suite (constructs in semantics_test.go).
package semantics
