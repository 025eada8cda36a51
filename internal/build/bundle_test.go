package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"heddle.dev"
)

// moduleRoot is heddle's own source tree, two levels up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bundle.go")); err != nil {
		t.Fatalf("not heddle's module root: %v", err)
	}
	return root
}

func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestBundleBuilds extracts the embedded runtime as an installed heddle
// does and builds it on its own, with the go line users' modules may have:
// a runtime file that needs a newer Go, or a runtime package missing from
// the bundle, fails here.
func TestBundleBuilds(t *testing.T) {
	dir, hash, err := ExtractRuntime(heddle.Runtime, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "module heddle.dev\n\ngo " + heddle.RuntimeGoVersion + "\n"; string(mod) != want {
		t.Errorf("go.mod = %q, want %q", mod, want)
	}
	if !strings.HasSuffix(dir, "rt-"+hash[:16]) {
		t.Errorf("runtime dir %s is not named by its hash %s", dir, hash)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.HasSuffix(p, "_test.go") {
			t.Errorf("extracted a test file: %s", p)
		}
		return err
	})
	goCmd(t, dir, "build", "./...")
	// stdversion flags uses of standard library API newer than the go line.
	goCmd(t, dir, "vet", "-stdversion", "./...")
}

// TestBundleComplete checks that every heddle package the runtime imports
// is in the bundle.
func TestBundleComplete(t *testing.T) {
	root := moduleRoot(t)
	out := goCmd(t, root, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "heddle.dev/rt")
	for _, p := range strings.Fields(out) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "heddle.dev"), "/")
		if !slices.Contains(heddle.RuntimeDirs, rel) {
			t.Errorf("heddle.dev/rt imports %s, which bundle.go does not embed", p)
		}
	}
	embedded, err := RuntimeHash(heddle.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := RuntimeHash(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	if embedded != onDisk {
		t.Errorf("embedded runtime hash %s differs from the source tree's %s", embedded, onDisk)
	}
}

func TestExtractReuses(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, d := range heddle.RuntimeDirs {
		fsys[d+"/a.go"] = &fstest.MapFile{Data: []byte("package x\n")}
		fsys[d+"/a_test.go"] = &fstest.MapFile{Data: []byte("package x\n")}
	}
	cache := t.TempDir()
	d1, h1, err := ExtractRuntime(fsys, cache)
	if err != nil {
		t.Fatal(err)
	}
	d2, h2, err := ExtractRuntime(fsys, cache)
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 || h1 != h2 {
		t.Errorf("second extraction went to %s (%s), first to %s (%s)", d2, h2, d1, h1)
	}
	if _, err := os.Stat(filepath.Join(d1, "rt", "a_test.go")); !os.IsNotExist(err) {
		t.Errorf("test file extracted: %v", err)
	}
	fsys["rt/a.go"] = &fstest.MapFile{Data: []byte("package x // changed\n")}
	d3, h3, err := ExtractRuntime(fsys, cache)
	if err != nil {
		t.Fatal(err)
	}
	if d3 == d1 || h3 == h1 {
		t.Errorf("a changed runtime reused %s", d1)
	}
}
