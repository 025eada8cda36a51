package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestRaiseLanguage: a file whose language version is older than go1.18
// is compiled as go1.21 after rewriting (the rt calls are generic), with
// the constraint folded into its own build lines.
func TestRaiseLanguage(t *testing.T) {
	const body = "package p\n\nfunc f(c chan int) { c <- 1 }\n"
	for _, c := range []struct {
		name, header, version, want, absent string
	}{
		{"no constraint", "", "go1.16", "//go:build go1.21\n", ""},
		{"go:build", "//go:build linux || darwin\n\n", "go1.17", "//go:build (linux || darwin) && go1.21\n", "//go:build linux || darwin\n"},
		{"+build", "// +build linux\n// +build amd64\n\n", "go1.16", "//go:build linux && amd64 && go1.21\n", "+build"},
		{"recent", "", "go1.18", "", "go:build"},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", c.header+body, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}, Implicits: map[ast.Node]types.Object{}, Scopes: map[ast.Node]*types.Scope{}}
		pkg, err := (&types.Config{GoVersion: c.version}).Check("p", fset, []*ast.File{f}, info)
		if err != nil {
			t.Fatal(err)
		}
		out, err := File(fset, f, info, pkg, c.version)
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if c.want != "" && !strings.Contains(s, c.want) {
			t.Errorf("%s: output lacks %q:\n%s", c.name, c.want, s)
		}
		if c.absent != "" && strings.Contains(s, c.absent) {
			t.Errorf("%s: output has %q:\n%s", c.name, c.absent, s)
		}
		if strings.Count(s, "//go:build") > 1 {
			t.Errorf("%s: more than one //go:build line:\n%s", c.name, s)
		}
	}
}
