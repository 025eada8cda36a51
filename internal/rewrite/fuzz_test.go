package rewrite

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	fuzzImporterOnce sync.Once
	fuzzImporter     types.Importer
)

// sharedImporter imports from export data (through go list), so that both
// the standard library and heddle.dev/rt resolve; it caches across inputs.
func sharedImporter() types.Importer {
	fuzzImporterOnce.Do(func() {
		fuzzImporter = importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
			// Run from this package's directory: heddle.dev/rt resolves
			// in its own module.
			out, err := exec.Command("go", "list", "-export", "-f", "{{.Export}}", path).Output()
			if err != nil {
				return nil, fmt.Errorf("go list -export %s: %v", path, err)
			}
			return os.Open(strings.TrimSpace(string(out)))
		})
	})
	return fuzzImporter
}

func checkFile(fset *token.FileSet, name string, src []byte) (*ast.File, *types.Info, *types.Package, error) {
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, nil, err
	}
	info := &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Scopes:       map[ast.Node]*types.Scope{},
		Instances:    map[*ast.Ident]types.Instance{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{Importer: sharedImporter(), GoVersion: "go1.26"}
	pkg, err := conf.Check("fuzz", fset, []*ast.File{f}, info)
	return f, info, pkg, err
}

// FuzzRewrite: whatever parses and type-checks must still parse and
// type-check (against the real heddle.dev/rt) once rewritten.
func FuzzRewrite(f *testing.F) {
	names, _ := filepath.Glob("testdata/golden/*.go")
	sort.Strings(names)
	for _, n := range goldenSeeds(f, names) {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, `"C"`) || strings.Contains(src, "//line") || strings.Contains(src, "/*line") {
			return // cgo, and inputs that move positions themselves
		}
		fset := token.NewFileSet()
		name := filepath.Join(t.TempDir(), "fuzz_test.go")
		file, info, pkg, err := checkFile(fset, name, []byte(src))
		if err != nil {
			return
		}
		out, err := File(fset, file, info, pkg, info.FileVersions[file])
		if err != nil {
			t.Fatalf("rewrite failed: %v\ninput:\n%s", err, src)
		}
		if _, _, _, err := checkFile(token.NewFileSet(), name, out); err != nil {
			t.Fatalf("rewritten code does not type-check: %v\ninput:\n%s\noutput:\n%s", err, src, out)
		}
	})
}

func goldenSeeds(f *testing.F, names []string) []string {
	var out []string
	for n, b := range goldenInputs(f) {
		_ = n
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}
