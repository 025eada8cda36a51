package rt_test

import (
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
