package build

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadMain checks heddle run's build: one main package, its tests
// left out of the binary and of the fingerprint, and a generated test
// that calls main, positioned at func main.
func TestLoadMain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":              "module example.com/m\n\ngo 1.21\n",
		"cmd/x/main.go":       "package main\n\nimport \"example.com/m/lib\"\n\n// main is the program.\nfunc main() {\n\tch := make(chan int)\n\tgo func() { ch <- lib.F() }()\n\t<-ch\n}\n",
		"cmd/x/main_test.go":  "package main\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { undefined() }\n",
		"cmd/x/x_test.go":     "package main_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"cmd/y/main.go":       "package main\n\nfunc main() {}\n",
		"lib/lib.go":          "package lib\n\nfunc F() int { return 1 }\n",
		"lib/lib_test.go":     "package lib\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n",
		"cmd/x/testdata/a.go": "package ignored\n",
	})
	cache := filepath.Join(t.TempDir(), "cache")
	load := func(patterns ...string) (*Program, error) {
		return Load(Options{Dir: root, Patterns: patterns, Main: true, CacheDir: cache})
	}

	var be *Error
	if _, err := load("./..."); !errors.As(err, &be) || !strings.Contains(err.Error(), "heddle run runs one main package, and ./... matched 3") {
		t.Errorf("./...: got %v, want a refusal of several packages", err)
	}
	if _, err := load("./lib"); !errors.As(err, &be) || !strings.Contains(err.Error(), "example.com/m/lib is package lib, not a command") {
		t.Errorf("./lib: got %v, want a refusal of a package that is not main", err)
	}

	p, err := load("./cmd/x")
	if err != nil {
		t.Fatal(err)
	}
	pkg := p.Packages[0]
	if pkg.Name != "main" || !pkg.HasTests {
		t.Errorf("Name %q, HasTests %v; want main, true", pkg.Name, pkg.HasTests)
	}
	if got, want := strings.Join(keys(pkg.Files), " "), "cmd/x/main.go go.mod lib/lib.go"; got != want {
		t.Errorf("files = %s, want %s (no test files, no generated file)", got, want)
	}
	bin, err := p.Build(pkg) // the broken main_test.go is not compiled
	if err != nil {
		t.Fatal(err)
	}
	out, err := runList(bin)
	if err != nil {
		t.Fatalf("%s -test.list: %v\n%s", bin, err, out)
	}
	if strings.TrimSpace(out) != MainTest {
		t.Errorf("tests of the binary: %q, want only %s", out, MainTest)
	}
	gen, err := os.ReadFile(filepath.Join(p.binDir, "..", "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), `heddle_main_test.go"`) || !strings.Contains(string(gen), `main_test.go": ""`) {
		t.Errorf("overlay does not add the generated test and delete the package's tests:\n%s", gen)
	}
	if at := mainDecl([]string{filepath.Join(root, "cmd/x/main.go")}); at != filepath.Join(root, "cmd/x/main.go")+":6" {
		t.Errorf("mainDecl = %q, want main.go:6", at)
	}
}

// runList lists the tests of a test binary.
func runList(bin string) (string, error) {
	out, err := exec.Command(bin, "-test.list=.").CombinedOutput()
	return string(out), err
}
