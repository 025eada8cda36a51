package main

import (
	"os/exec"
	"syscall"
)

// childAttr makes a test binary end with heddle: the kernel kills it when
// heddle dies, however heddle dies (an IDE's or CI's cancel sends SIGKILL),
// and it gets its own process group, so that a Ctrl-C reaches it once,
// forwarded by heddle, which then prints what was explored so far.
//
// The death signal is tied to the thread that started the child: the
// caller keeps its goroutine on one thread while the child runs.
func childAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

const lockThreadForChild = true

// reaperAttr puts the reaper (reap.go) in a process group of its own: a
// kill of heddle's group spares it, and it has no death signal.
func reaperAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
