package rewrite

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"

	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// repoRoot is the directory of the heddle.dev module.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rt", "doc.go")); err != nil {
		t.Fatalf("heddle.dev root not found at %s: %v", dir, err)
	}
	return dir
}

// tempModule writes files (relative path -> content) into a new module
// named "golden" that can import heddle.dev/rt from this repository.
func tempModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	root := repoRoot(t)
	gomod := fmt.Sprintf("module golden\n\ngo 1.26\n\nrequire heddle.dev v0.0.0\n\nreplace heddle.dev => %s\n", root)
	files["go.mod"] = gomod
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
}

const fullMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedModule | packages.NeedTypesSizes

// goldenInputs returns the golden input files, name -> content.
func goldenInputs(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("testdata/golden/*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	if len(out) == 0 {
		t.Fatal("no golden inputs")
	}
	return out
}

// goldenDir is the package directory of a golden input in the temporary
// module: one package per input.
func goldenDir(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, ".go"), "_test")
}

func TestGolden(t *testing.T) {
	inputs := goldenInputs(t)
	files := map[string]string{}
	for name, b := range inputs {
		files[filepath.Join(goldenDir(name), name)] = string(b)
	}
	dir := tempModule(t, files)
	cfg := &packages.Config{Mode: fullMode, Dir: dir, Env: goEnv(), Tests: true}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadErrors(pkgs); err != nil {
		t.Fatalf("golden inputs do not type-check:\n%v", err)
	}
	outputs := map[string][]byte{} // absolute path -> rewritten
	done := map[string]bool{}
	sort.SliceStable(pkgs, func(i, j int) bool {
		return strings.Contains(pkgs[i].ID, " [") && !strings.Contains(pkgs[j].ID, " [")
	})
	for _, p := range pkgs {
		if isTestMain(p) {
			continue
		}
		for _, f := range p.Syntax {
			path := p.Fset.Position(f.Package).Filename
			if done[path] {
				continue
			}
			done[path] = true
			goVersion := p.TypesInfo.FileVersions[f]
			out, err := File(p.Fset, f, p.TypesInfo, p.Types, goVersion)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			outputs[path] = out
		}
	}
	for name := range inputs {
		path := filepath.Join(dir, goldenDir(name), name)
		out, ok := outputs[path]
		if !ok {
			t.Errorf("%s: not rewritten", name)
			continue
		}
		got := bytes.ReplaceAll(out, []byte(dir), []byte("$DIR"))
		goldenPath := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".go")+".golden")
		if *update {
			if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(goldenPath)
		if err != nil {
			t.Errorf("%s: %v (run go test -update)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: rewritten output differs from %s:\n%s", name, goldenPath, lineDiff(string(want), string(got)))
		}
	}

	// Every rewritten golden must type-check against the real heddle.dev/rt.
	cfg2 := &packages.Config{Mode: fullMode, Dir: dir, Env: goEnv(), Tests: true, Overlay: outputs}
	pkgs2, err := packages.Load(cfg2, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadErrors(pkgs2); err != nil {
		t.Errorf("rewritten goldens do not type-check:\n%v", err)
	}
	for _, p := range pkgs2 {
		for _, f := range p.Syntax {
			checkNoNative(t, p, f)
		}
	}
}

// checkNoNative fails if a rewritten golden still contains a channel
// operation or a go statement: every one of them must have been rewritten.
func checkNoNative(t *testing.T, p *packages.Package, f *ast.File) {
	name := p.Fset.Position(f.Package).Filename
	if strings.Contains(name, "native") {
		return // inputs that check what is deliberately left alone
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt, *ast.SelectStmt, *ast.SendStmt:
			t.Errorf("%s: %T left in rewritten code", p.Fset.Position(n.Pos()), n)
		case *ast.UnaryExpr:
			if n.Op.String() == "<-" {
				t.Errorf("%s: receive left in rewritten code", p.Fset.Position(n.Pos()))
			}
		case *ast.RangeStmt:
			if tv, ok := p.TypesInfo.Types[n.X]; ok {
				if chanOf(tv.Type) != nil {
					t.Errorf("%s: range over %s left in rewritten code", p.Fset.Position(n.Pos()), tv.Type)
				}
				if strings.HasPrefix(tv.Type.Underlying().String(), "chan ") || strings.HasPrefix(tv.Type.Underlying().String(), "map[") {
					t.Errorf("%s: range over %s left in rewritten code", p.Fset.Position(n.Pos()), tv.Type)
				}
			}
		}
		return true
	})
}

// lineDiff is a minimal line diff for golden failures.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			if b.Len() > 4000 {
				break
			}
		}
	}
	return b.String()
}

// TestLinePositions compiles and runs a rewritten program whose goroutine
// panics, and checks that the stack names the original file and line.
func TestLinePositions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	src := `package main

import (
	"fmt"
	"runtime"
	"sync"
)

func where() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", file, line)
}

func main() {
	var wg sync.WaitGroup
	ch := make(chan int, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case ch <- 1:
			fmt.Println("caller", where())
		}
	}()
	wg.Wait()
	v := <-ch
	var m map[string]int
	if v == 1 {
		m["boom"] = v // line 29: panics
	}
}
`
	dir := tempModule(t, map[string]string{"main.go": src})
	res, err := Rewrite(Options{Dir: dir, Env: goEnv(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "main.go")
	if res.Overlay[orig] == "" {
		t.Fatalf("main.go not rewritten: %+v", res)
	}
	ov := filepath.Join(t.TempDir(), "overlay.json")
	writeOverlay(t, ov, res.Overlay)
	cmd := exec.Command("go", "run", "-overlay", ov, ".")
	cmd.Dir = dir
	cmd.Env = goEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("program did not panic:\n%s", out)
	}
	s := string(out)
	if !strings.Contains(s, "caller "+orig+":22") {
		t.Errorf("runtime.Caller in a rewritten select case does not name %s:22:\n%s", orig, s)
	}
	if !strings.Contains(s, orig+":29") {
		t.Errorf("panic stack does not name %s:29:\n%s", orig, s)
	}
	if !strings.Contains(s, "assignment to entry in nil map") {
		t.Errorf("unexpected failure:\n%s", s)
	}

}

func writeOverlay(t testing.TB, path string, overlay map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"Replace":{`)
	first := true
	for k, v := range overlay {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "%q:%q", k, v)
	}
	b.WriteString("}}")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
