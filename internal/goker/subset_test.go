package goker

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ciKernels are the kernels of the fast subset: one per kind of bug
// (double locking, AB-BA, channel, channel & WaitGroup, channel & lock).
var ciKernels = []string{"Moby7559", "Cockroach10214", "Syncthing5795", "Cockroach1055", "Etcd6873"}

// TestSubset runs heddle, built from this tree, on a few kernels in single
// form with the default strategy, and fails if it stops finding their bugs
// within 1000 runs or reports something that is not the expected leak.
// The whole harness is `go run ./cmd/goker` (docs/goker.md).
func TestSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heddle and runs it on GoKer kernels")
	}
	ks := loadKernels(t)
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	modDir := filepath.Dir(strings.TrimSpace(string(out)))
	tmp := t.TempDir()
	heddle := filepath.Join(tmp, "heddle")
	ctx := context.Background()
	if err := BuildHeddle(ctx, modDir, "", heddle); err != nil {
		t.Fatal(err)
	}
	for _, name := range ciKernels {
		t.Run(name, func(t *testing.T) {
			k := ks[name]
			if k == nil {
				t.Fatalf("no kernel %s in GOROOT", name)
			}
			c, err := k.Prepare(Single)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmp, k.Key)
			if err := k.WriteModule(dir, c, heddleTestFile(k)); err != nil {
				t.Fatal(err)
			}
			r := k.RunHeddle(ctx, heddle, dir, DefaultStrategy, 1000, 2*time.Minute)
			switch {
			case r.Err != "":
				t.Fatalf("heddle: %s", r.Err)
			case !r.Found:
				t.Fatalf("heddle found no bug in %d runs", r.Runs)
			case !r.Verdict.OK:
				t.Fatalf("heddle reported a bug that is not the kernel's (%s): %s\n%s", r.Kind, r.Verdict.Why, r.Report)
			}
			t.Logf("%s at run %d", r.Kind, r.Run)
		})
	}
}
