package execs

import (
	"context"
	"os/exec"
)

// run: a command's Start, Wait, Run, Output and CombinedOutput read its
// context first (rt.ExecStart and its siblings).
func run(ctx context.Context) ([]byte, error) {
	c := exec.CommandContext(ctx, "true")
	if err := c.Start(); err != nil {
		return nil, err
	}
	if err := c.Wait(); err != nil {
		return nil, err
	}
	if err := exec.CommandContext(ctx, "true").Run(); err != nil {
		return nil, err
	}
	if _, err := exec.Command("true").CombinedOutput(); err != nil {
		return nil, err
	}
	run := exec.Command("true").Run
	if err := run(); err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, "echo").Output()
}
