package build

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestLoadPerPackageFiles checks that each package's fingerprint covers
// the files its test binary is built from, and only those: a schedule of
// package a must not be refused because an unrelated package c changed.
func TestLoadPerPackageFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.21\n",
		"a/a.go":      "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tch := make(chan int)\n\tgo func() { ch <- A() }()\n\t<-ch\n}\n",
		"b/b.go":      "package b\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\nfunc B() int { mu.Lock(); defer mu.Unlock(); return 1 }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tch := make(chan int)\n\tgo func() { ch <- B() }()\n\t<-ch\n}\n",
		"c/c.go":      "package c\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\nfunc C() { mu.Lock(); mu.Unlock() }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) { C() }\n",
	})
	load := func(patterns ...string) *Program {
		if len(patterns) == 0 {
			patterns = []string{"./..."}
		}
		p, err := Load(Options{Dir: root, Patterns: patterns, CacheDir: filepath.Join(t.TempDir(), "cache")})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := load()
	var got []string
	byPath := map[string]*Package{}
	for _, pkg := range p.Packages {
		got = append(got, pkg.ImportPath)
		byPath[pkg.ImportPath] = pkg
	}
	if want := "example.com/m/a example.com/m/b example.com/m/c"; strings.Join(got, " ") != want {
		t.Fatalf("packages = %v, want %s", got, want)
	}
	a, c := byPath["example.com/m/a"], byPath["example.com/m/c"]
	if !a.HasTests || !byPath["example.com/m/b"].HasTests {
		t.Errorf("HasTests: a %v, b %v", a.HasTests, byPath["example.com/m/b"].HasTests)
	}
	if got, want := strings.Join(keys(a.Files), " "), "a/a.go a/a_test.go b/b.go go.mod"; got != want {
		t.Errorf("files of a = %s, want %s", got, want)
	}
	if got, want := strings.Join(keys(c.Files), " "), "c/c.go c/c_test.go go.mod"; got != want {
		t.Errorf("files of c = %s, want %s", got, want)
	}

	// Replay loads the one package: a's fingerprint must be the one
	// recorded by a run on ./..., although b's tests are not loaded then.
	for _, pkg := range load("./a").Packages {
		if pkg.ImportPath == a.ImportPath && pkg.Fingerprint != a.Fingerprint {
			t.Errorf("a's fingerprint differs when loaded alone: %s", FileDiff(a.Files, pkg.Files))
		}
	}

	// Changing c changes c's fingerprint, not a's.
	writeTree(t, root, map[string]string{"c/c.go": "package c\n\nimport \"sync\"\n\nvar mu sync.Mutex\n\nfunc C() { mu.Lock(); defer mu.Unlock() }\n"})
	p2 := load()
	for _, pkg := range p2.Packages {
		switch pkg.ImportPath {
		case a.ImportPath:
			if pkg.Fingerprint != a.Fingerprint {
				t.Errorf("a's fingerprint changed with c: %s", FileDiff(a.Files, pkg.Files))
			}
		case c.ImportPath:
			if pkg.Fingerprint == c.Fingerprint {
				t.Error("c's fingerprint did not change with c.go")
			}
			if d := FileDiff(c.Files, pkg.Files); d != "c/c.go changed" {
				t.Errorf("FileDiff = %q, want %q", d, "c/c.go changed")
			}
		}
	}

	// a.go has nothing to rewrite, but a change to it is a change of a.
	writeTree(t, root, map[string]string{"a/a.go": "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() + 0 }\n"})
	for _, pkg := range load().Packages {
		if pkg.ImportPath == a.ImportPath {
			if d := FileDiff(a.Files, pkg.Files); d != "a/a.go changed" {
				t.Errorf("after editing a.go, FileDiff = %q, want %q", d, "a/a.go changed")
			}
		}
	}
}

func TestLoadNoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	_, err := Load(Options{Dir: dir, CacheDir: t.TempDir(), Env: append(os.Environ(), "GO111MODULE=on")})
	if err == nil || !strings.Contains(err.Error(), "no go.mod found in "+dir+" or any parent") {
		t.Errorf("Load outside a module: %v", err)
	}
}

func TestLoadCompileError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.21\n",
		"m.go":      "package m\n\nfunc F() int {\n\treturn undefinedName\n}\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
	})
	p, err := Load(Options{Dir: root, CacheDir: t.TempDir()})
	if err == nil {
		_, err = p.Build(p.Packages[0])
	}
	var be *Error
	if !errors.As(err, &be) {
		t.Fatalf("error = %v (%T), want a *build.Error", err, err)
	}
	if !strings.Contains(be.Msg, "m.go:4:9: undefined: undefinedName") {
		t.Errorf("compile error without the original position:\n%s", be.Msg)
	}
}
