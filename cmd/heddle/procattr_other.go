//go:build !linux

package main

import "os/exec"

// childAttr: outside Linux there is no death signal; heddle forwards the
// signals it can catch, and a test binary ends by its -test.timeout.
func childAttr(cmd *exec.Cmd) {}

const lockThreadForChild = false

func reaperAttr(cmd *exec.Cmd) {}
