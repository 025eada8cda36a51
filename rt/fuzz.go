package rt

import (
	"testing"

	"heddle.dev/internal/explore"
)

// FuzzEntry replaces the body of a fuzz function literal: go test, without
// -fuzz, calls the fuzz function with each entry of the seed corpus (f.Add's,
// and the files of testdata/fuzz/FuzzX) in a subtest of its own,
// FuzzX/seed#0 or FuzzX/FILE, and heddle explores each such call as a test
// of that name. The rewriter turns
//
//	f.Fuzz(func(t *testing.T, data []byte) { body })
//
// into
//
//	f.Fuzz(func(t *testing.T, data []byte) { rt.FuzzEntry(t, func(t *testing.T) { body }, data) })
//
// args are the fuzz function's arguments: each run starts with the
// entry's values. With -test.fuzz, the fuzzer's calls run natively.
func FuzzEntry(t *testing.T, body func(t *testing.T), args ...any) {
	t.Helper()
	explore.FuzzEntry(t, body, args...)
}

// Fuzz replaces f.Fuzz(ff) when ff is not a function literal: FuzzEntry,
// by reflection.
func Fuzz(f *testing.F, ff any) {
	f.Helper()
	f.Fuzz(explore.FuzzFunc(ff))
}
