package rt_test

import (
	"os"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
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

// A test that reads the environment once per process, on its first run
// only (a package variable caching it), while its goroutine is alone: the
// read is no step, so that first run takes the steps of the later ones
// and its replay in the same process reproduces it (script
// parallel_output.txt's pid helper). Before, the first run had a step
// more, and every bug found in it was reported from a new process.
func TestEnvAloneIsNoStep(t *testing.T) {
	read := false
	body := func() {
		if !read {
			read = true
			rt.Getenv("HEDDLE_RT_ENV_TEST")
			f, err := os.CreateTemp(t.TempDir(), "f")
			if err == nil {
				rt.FileW(f).Close()
			}
		}
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() { rt.Send(done, true) })
		rt.Recv(done)
	}
	s := strategy.NewRandom(1)
	run := 0
	steps := func() int {
		run++
		s.Begin(run)
		res := engine.Run(engine.Config{Trace: true}, s, body)
		s.End(res)
		if res.Bug != nil || res.Internal != "" {
			t.Fatalf("run: %v %s", res.Bug, res.Internal)
		}
		return len(res.Trace)
	}
	first, second := steps(), steps()
	if first != second {
		t.Errorf("the first run took %d steps, the second %d: the environment read and file close alone were steps", first, second)
	}
}
