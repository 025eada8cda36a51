package rewrite

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// A dependency from before modules has no go.mod in the module cache; its
// copy gets one, or the go command refuses the replacement directory
// (VictoriaMetrics/fastcache's tests import allegro/bigcache at such a
// version). A copy made before keeps working: the go.mod is added to it.
func TestCopyModuleWithoutGoMod(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	m := &packages.Module{Path: "example.com/nomod", Version: "v1.2.1-0.20190218064605-e24eb225f156", Dir: src}
	dst, err := copyModule(cache, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "go.mod"))
	if err != nil {
		t.Fatalf("copy has no go.mod: %v", err)
	}
	if got, want := string(b), "module \"example.com/nomod\"\n"; got != want {
		t.Errorf("go.mod = %q, want %q", got, want)
	}

	// A copy cached without one (before this fix) gets it on its next use.
	if err := os.Remove(filepath.Join(dst, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, err := copyModule(cache, m); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err != nil {
		t.Errorf("cached copy still has no go.mod: %v", err)
	}

	// A module's own go.mod is kept.
	src2 := t.TempDir()
	own := "module example.com/own\n\ngo 1.20\n"
	if err := os.WriteFile(filepath.Join(src2, "go.mod"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	dst2, err := copyModule(cache, &packages.Module{Path: "example.com/own", Version: "v1.0.0", Dir: src2})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst2, "go.mod")); string(b) != own {
		t.Errorf("own go.mod = %q, want %q", b, own)
	}
}
