package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadCache checks that a Load with nothing changed is read from the
// load cache, with the same result, and that every change of what Load
// reads is seen: a source file edited, a file added to a package, a new
// package under ./..., a C header added and edited, go.mod edited, a
// rewritten file removed from heddle's cache, other options.
func TestLoadCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.21\n",
		"a/a.go":      "package a\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\nfunc A() int { mu.Lock(); defer mu.Unlock(); return 1 }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tch := make(chan int)\n\tgo func() { ch <- A() }()\n\t<-ch\n}\n",
	})
	cache := filepath.Join(t.TempDir(), "cache")
	// Files written just before a Load are not cached (they may change
	// as it reads them): make them an hour old.
	age := func() {
		old := time.Now().Add(-time.Hour)
		filepath.Walk(root, func(path string, _ os.FileInfo, err error) error {
			if err == nil {
				os.Chtimes(path, old, old)
			}
			return err
		})
	}
	load := func(race bool, patterns ...string) (*Program, bool) {
		t.Helper()
		hits := loadCacheHits
		p, err := Load(Options{Dir: root, Patterns: patterns, Race: race, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return p, loadCacheHits > hits
	}
	pkgs := func(p *Program) string {
		var s []string
		for _, pkg := range p.Packages {
			s = append(s, pkg.ImportPath+" "+pkg.Fingerprint)
		}
		return strings.Join(s, "\n")
	}
	age()
	p1, hit := load(false, "./...")
	if hit {
		t.Fatal("first Load read from the cache")
	}
	p2, hit := load(false, "./...")
	if !hit {
		t.Fatal("second Load, nothing changed, not read from the cache")
	}
	if pkgs(p1) != pkgs(p2) || strings.Join(p1.AllFiles(), " ") != strings.Join(p2.AllFiles(), " ") || p2.overlay != p1.overlay {
		t.Fatalf("cached Load differs:\n%s\n%v\nvs\n%s\n%v", pkgs(p1), p1.AllFiles(), pkgs(p2), p2.AllFiles())
	}
	if _, err := p2.Build(p2.Packages[0]); err != nil {
		t.Fatalf("building from the cached Load: %v", err)
	}

	// Each change, then a Load that must see it, then (aged) one from the
	// cache again.
	steps := []struct {
		name   string
		change func()
		check  func(p *Program) string
	}{
		{"source edited", func() {
			writeTree(t, root, map[string]string{"a/a.go": "package a\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\nfunc A() int { mu.Lock(); defer mu.Unlock(); return 2 }\n"})
		}, func(p *Program) string {
			if p.Packages[0].Fingerprint == p1.Packages[0].Fingerprint {
				return "a's fingerprint did not change"
			}
			return ""
		}},
		{"file added", func() {
			writeTree(t, root, map[string]string{"a/b.go": "package a\n\nfunc B() { go A() }\n"})
		}, func(p *Program) string {
			if _, ok := p.Packages[0].Files["a/b.go"]; !ok {
				return "a/b.go is not among a's files"
			}
			return ""
		}},
		{"package added", func() {
			writeTree(t, root, map[string]string{"c/c.go": "package c\n", "c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n"})
		}, func(p *Program) string {
			if len(p.Packages) != 2 || p.Packages[1].ImportPath != "example.com/m/c" {
				return "example.com/m/c not loaded"
			}
			return ""
		}},
		{"C header added", func() {
			writeTree(t, root, map[string]string{"a/x.h": "int x;\n"})
		}, func(p *Program) string { return "" }},
		{"C header edited", func() {
			writeTree(t, root, map[string]string{"a/x.h": "int y;\n"})
		}, func(p *Program) string { return "" }},
		{"go.mod edited", func() {
			writeTree(t, root, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"})
		}, func(p *Program) string { return "" }},
		{"rewritten file removed from the cache", func() {
			p, _ := load(false, "./...")
			for _, n := range p.AllFiles() {
				if n == "a/a.go" {
					os.Remove(rewrittenPath(t, p, n))
				}
			}
		}, func(p *Program) string {
			if _, err := p.Build(p.Packages[0]); err != nil {
				return "build after the rewritten file was removed: " + err.Error()
			}
			return ""
		}},
	}
	for _, s := range steps {
		s.change()
		p, hit := load(false, "./...")
		if hit {
			t.Fatalf("%s: Load read from the cache", s.name)
		}
		if msg := s.check(p); msg != "" {
			t.Fatalf("%s: %s", s.name, msg)
		}
		age()
		load(false, "./...")
		if _, hit := load(false, "./..."); !hit {
			t.Fatalf("%s: the Load after it, nothing changed, not read from the cache", s.name)
		}
	}
	// Other options are another entry.
	if _, hit := load(true, "./..."); hit {
		t.Fatal("Load with -race read from the cache of a Load without")
	}
	if _, hit := load(false, "./a"); hit {
		t.Fatal("Load of ./a read from the cache of a Load of ./...")
	}
	t.Setenv("HEDDLE_LOADCACHE", "off")
	if _, hit := load(false, "./..."); hit {
		t.Fatal("HEDDLE_LOADCACHE=off: Load read from the cache")
	}
}

// rewrittenPath is the file of heddle's cache the overlay builds n from.
func rewrittenPath(t *testing.T, p *Program, n string) string {
	t.Helper()
	abs := filepath.Join(p.Module.Root, filepath.FromSlash(n))
	var ov struct{ Replace map[string]string }
	b, err := os.ReadFile(p.overlay)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ov); err != nil {
		t.Fatal(err)
	}
	f, ok := ov.Replace[abs]
	if !ok {
		t.Fatalf("%s not in the overlay", abs)
	}
	return f
}
