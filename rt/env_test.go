package rt_test

import (
	"os"
	"testing"

	"heddle.dev/rt"
)

// A goroutine sets an environment variable while another reads it:
// optimal DPOR reaches both (conform TestEnvSetVsGet). Before the
// environment's functions were steps, they were independent: one run,
// the read before the write only.
func TestEnvIsAStep(t *testing.T) {
	const key = "HEDDLE_RT_ENV_TEST"
	got := odporOutcomes(t, func() string {
		rt.Unsetenv(key)
		defer rt.Unsetenv(key)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Setenv(key, "x")
			rt.Send(done, true)
		})
		v, ok := rt.LookupEnv(key)
		rt.Recv(done)
		if !ok {
			return "unset"
		}
		return v
	})
	if want := "unset | x"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// A goroutine changes the working directory while another reads it:
// optimal DPOR reaches both (conform TestChdirVsGetwd). Before, os.Chdir
// and os.Getwd were no steps: one run, the old directory only.
func TestChdirIsAStep(t *testing.T) {
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	dir := t.TempDir()
	got := odporOutcomes(t, func() string {
		os.Chdir(old)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Chdir(dir)
			rt.Send(done, true)
		})
		wd, _ := rt.Getwd()
		rt.Recv(done)
		if wd == dir {
			return "moved"
		}
		return "not moved"
	})
	if want := "moved | not moved"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
