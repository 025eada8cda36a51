package rt

import (
	"os"

	"heddle.dev/internal/engine"
)

// The process's environment is kept by package syscall under a lock of
// its own, which is not rewritten: without a step, a goroutine's
// os.Setenv and another's os.Getenv were independent for DPOR, which
// explored one order only (conform TestEnvSetVsGet: natively the read
// sees the value or not; heddle 2 runs, "exhausted", never the value).
// Each of os's environment functions is now a step: an atomic read or
// write of one object standing for the environment (engine.EnvAccess).

// envStep is the step of an access of the environment (engine.EnvAccess:
// its object is the one testing.T's Setenv and Chdir use too).
func envStep(op engine.OpKind) { engine.EnvAccess(op) }

// Setenv replaces os.Setenv.
func Setenv(key, value string) error {
	envStep(engine.OpAtomicWrite)
	return os.Setenv(key, value)
}

// Unsetenv replaces os.Unsetenv.
func Unsetenv(key string) error {
	envStep(engine.OpAtomicWrite)
	return os.Unsetenv(key)
}

// Clearenv replaces os.Clearenv.
func Clearenv() {
	envStep(engine.OpAtomicWrite)
	os.Clearenv()
}

// Getenv replaces os.Getenv.
func Getenv(key string) string {
	envStep(engine.OpAtomicLoad)
	return os.Getenv(key)
}

// LookupEnv replaces os.LookupEnv.
func LookupEnv(key string) (string, bool) {
	envStep(engine.OpAtomicLoad)
	return os.LookupEnv(key)
}

// Environ replaces os.Environ.
func Environ() []string {
	envStep(engine.OpAtomicLoad)
	return os.Environ()
}

// ExpandEnv replaces os.ExpandEnv.
func ExpandEnv(s string) string {
	envStep(engine.OpAtomicLoad)
	return os.ExpandEnv(s)
}

// Chdir replaces os.Chdir. The working directory is process state too,
// kept by the kernel (and os.Getwd reads $PWD): its accesses are steps on
// the environment's object (conform TestChdirVsGetwd).
func Chdir(dir string) error {
	envStep(engine.OpAtomicWrite)
	return os.Chdir(dir)
}

// Getwd replaces os.Getwd.
func Getwd() (string, error) {
	envStep(engine.OpAtomicLoad)
	return os.Getwd()
}
