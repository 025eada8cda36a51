package engine

import "testing"

// TestDetachable checks which goroutine stacks the monitor takes for a
// wait outside heddle's code: a system call made by code that is not
// heddle's is one (gofrs/flock's flock(LOCK_EX) waited for the test
// goroutine to unlock, and the run was reported blocked), one made by the
// engine itself in the middle of a step is not.
func TestDetachable(t *testing.T) {
	const bottom = "heddle.dev/internal/engine.(*Exec).goroutine(0xc000100000, 0xc000200000, 0xc000300000)\n\t/h/internal/engine/exec.go:700 +0x90\n"
	for _, c := range []struct {
		name  string
		block string
		want  bool
	}{
		{"flock", "goroutine 14 [syscall]:\nsyscall.Syscall(0x49, 0x7, 0x2, 0x0)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\nsyscall.Flock(0x7, 0x2)\n\t/go/src/syscall/zsyscall_linux_amd64.go:453 +0x25\nexample.com/lock.lockWait.func3()\n\t/w/lock_test.go:31 +0x45\n" + bottom, true},
		{"x/sys flock", "goroutine 9 [syscall, 2 minutes]:\nsyscall.Syscall(0x49, 0x7, 0x2, 0x0)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\ngolang.org/x/sys/unix.Flock(0x7, 0x2)\n\t/m/golang.org/x/sys@v0.1.0/unix/zsyscall_linux.go:10 +0x25\ngithub.com/gofrs/flock.(*Flock).lock(0xc0001)\n\t/m/flock_unix.go:60 +0x80\n" + bottom, true},
		{"read of a FIFO by rt.ReadFile", "goroutine 9 [syscall]:\nsyscall.Syscall(0x0, 0x7, 0xc000, 0x200)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\ninternal/poll.(*FD).Read(0xc00)\n\t/go/src/internal/poll/fd_unix.go:165 +0x25\nos.(*File).Read(0xc00)\n\t/go/src/os/file.go:124 +0x25\nos.ReadFile({0xc00, 0x10})\n\t/go/src/os/file.go:800 +0x25\nheddle.dev/rt.ReadFile({0xc00, 0x10})\n\t/h/rt/file.go:366 +0x25\nexample.com/x.TestRead(0xc00)\n\t/w/x_test.go:9 +0x25\n" + bottom, true},
		{"the engine's own write", "goroutine 9 [syscall]:\nsyscall.Syscall(0x1, 0x2, 0xc000, 0x200)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\ninternal/poll.(*FD).Write(0xc00)\n\t/go/src/internal/poll/fd_unix.go:380 +0x25\nos.(*File).Write(0xc00)\n\t/go/src/os/file.go:195 +0x25\nheddle.dev/internal/engine.(*Exec).trace(0xc00)\n\t/h/internal/engine/trace.go:20 +0x25\n" + bottom, false},
		{"a write of rt's outside its file wrappers", "goroutine 9 [syscall]:\nsyscall.Syscall(0x1, 0x2, 0xc000, 0x200)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\nos.(*File).Write(0xc00)\n\t/go/src/os/file.go:195 +0x25\nheddle.dev/rt.logOutput(0xc00)\n\t/h/rt/log.go:20 +0x25\n" + bottom, false},
		{"a channel of net/http", "goroutine 9 [select]:\nnet/http.(*persistConn).roundTrip(0xc00)\n\t/go/src/net/http/transport.go:2600 +0x25\n" + bottom, true},
		{"heddle's own wait", "goroutine 9 [chan receive]:\nheddle.dev/internal/engine.(*wakeup).wait(0xc00)\n\t/h/internal/engine/handoff.go:20 +0x25\n" + bottom, false},
		{"a sleep", "goroutine 9 [sleep]:\ntime.Sleep(0x100)\n\t/go/src/runtime/time.go:300 +0x25\n" + bottom, false},
		{"computing", "goroutine 9 [running]:\nexample.com/x.spin()\n\t/w/x.go:3 +0x25\n" + bottom, false},
	} {
		if got := detachable(c.block); got != c.want {
			t.Errorf("%s: detachable = %v, want %v", c.name, got, c.want)
		}
	}
}
