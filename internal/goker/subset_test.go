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
// (double locking, AB-BA, channel, channel & WaitGroup, channel & lock),
// explored with heddle test, and one with heddle run.
var ciKernels = []struct{ name, via string }{
	{"Moby7559", ViaTest},
	{"Cockroach10214", ViaTest},
	{"Syncthing5795", ViaTest},
	{"Cockroach1055", ViaTest},
	{"Etcd6873", ViaTest},
	{"Moby4951", ViaRun},
}

// unreachable is the kernel whose bug no schedule has (docs/goker.md):
// the subset checks that odpor still proves it.
const unreachable = "Moby27782"

// TestSubset runs heddle, built from this tree, on a few kernels in single
// form with the default strategy, and fails if it stops finding their bugs
// within 1000 runs or reports something that is not the expected leak; and
// it checks that odpor explores every schedule of Moby27782 without a bug.
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
	module := func(t *testing.T, name string) (*Kernel, string) {
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
		return k, dir
	}
	for _, ck := range ciKernels {
		t.Run(ck.name+"/"+ck.via, func(t *testing.T) {
			k, dir := module(t, ck.name)
			r := k.RunHeddleVia(ctx, ck.via, heddle, dir, DefaultStrategy, 1000, 2*time.Minute)
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
	t.Run(unreachable+"/odpor", func(t *testing.T) {
		k, dir := module(t, unreachable)
		r := k.RunHeddle(ctx, heddle, dir, "odpor", 100000, 2*time.Minute)
		switch {
		case r.Err != "":
			t.Fatalf("heddle: %s", r.Err)
		case r.Found:
			t.Fatalf("odpor reported a bug at run %d: %s", r.Run, r.Report)
		// The kernel's goroutines poll: a proof up to the spin bound
		// (design.md, "The spin bound") will do.
		case !strings.HasPrefix(r.Proven, "all schedules explored") && !strings.HasPrefix(r.Proven, "all schedules in which no goroutine polls"):
			t.Fatalf("odpor made %d runs and proved nothing (exhausted %v, proven %q)", r.Runs, r.Exhausted, r.Proven)
		}
		t.Logf("%s in %d runs", r.Proven, r.Runs)
	})
}
