package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkTreeState: a page built with -rev "" says "plus the working
// tree's changes" only when the tree differs from HEAD.
func TestWorkTreeState(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	f := filepath.Join(dir, "a.go")
	if err := os.WriteFile(f, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "a.go")
	git("commit", "-q", "-m", "a")
	if got := workTreeState(dir); got != " (a clean working tree)" {
		t.Errorf("clean tree: %q", got)
	}
	if err := os.WriteFile(f, []byte("package a // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := workTreeState(dir); got != " plus the working tree's changes" {
		t.Errorf("changed tree: %q", got)
	}
}
