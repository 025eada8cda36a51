package rt_test

import (
	"fmt"
	"os"
	"testing"

	"heddle.dev/rt"
)

// A goroutine closes an os.Pipe's read end while the test goroutine
// writes to it, and runs its Close only after the test goroutine ended:
// optimal DPOR reaches the broken pipe too (conform
// TestOsPipeReadEndClosedVsWrite: 2,083 of 4,971 native runs). Before, a
// goroutine left alone once the others ended was Alone, its Close was no
// step, and the search ended after one run, the write first only.
func TestFileStepOfGoroutineLeftAlone(t *testing.T) {
	got := odporOutcomes(t, func() string {
		r, w, err := os.Pipe()
		if err != nil {
			return err.Error()
		}
		rt.Go(func() { rt.FileW(r).Close() })
		_, err = rt.FileW(w).Write([]byte("x"))
		w.Close()
		return fmt.Sprint("write error ", err != nil)
	})
	if want := "write error false | write error true"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
