package explore

import (
	"os"
	"time"
)

// progressEvery is how often an exploration emits a progress event
// (checked every 32 runs). HEDDLE_PROGRESS_EVERY (a duration) changes it,
// for tests.
var progressEvery = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("HEDDLE_PROGRESS_EVERY")); err == nil && d > 0 {
		return d
	}
	return time.Second
}()
