package rt

import (
	"testing"

	"heddle.dev/internal/explore"
)

// Main explores main, the main function of a main package, the way Explore
// explores a test body. `heddle run` adds a test file to the package under
// test whose one test is
//
//	func TestHeddleMain(t *testing.T) { rt.Main(t, main) }
//
// The arguments of main's runs are read from the environment that
// `heddle run` sets; see heddle.dev/internal/explore.
func Main(t *testing.T, main func()) {
	t.Helper()
	explore.Main(t, main)
}
