package goker

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Form is how a kernel is run.
type Form string

const (
	// Shipped is the kernel as in GOROOT: its loop of many copies is kept.
	Shipped Form = "shipped"
	// Single rewrites the loop bound so that one copy of the buggy scenario
	// runs per test run.
	Single Form = "single"
)

// Copy is a kernel file prepared for one form.
type Copy struct {
	Src     []byte
	Changes []string // what was changed, for the record
	Copies  string   // copies of the scenario per run, as in the source ("1000", "1")
}

type edit struct {
	from, to int
	text     string
	removes  bool
}

// Prepare returns the kernel's file in form f. In both forms the profiling
// scaffolding of the registered function is removed: the statement
// `prof := pprof.Lookup("goroutineleak")` and the deferred function that
// waits (time.Sleep, or yieldCount calls of runtime.Gosched) and then calls
// prof.WriteTo; imports left unused are dropped. heddle's leak oracle (and
// the native harness's leak check) replace that wait and that profile.
// Every other statement, runtime.Gosched calls included, is kept. In the
// single form, the top-level `for i := 0; i < N; i++` loop around the
// scenario gets the bound 1 (`i <= N` gets 0): one copy per run.
func (k *Kernel) Prepare(f Form) (*Copy, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, k.File, k.Src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var fd *ast.FuncDecl
	for _, d := range file.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil && d.Name.Name == k.Name {
			fd = d
		}
	}
	if fd == nil || fd.Body == nil {
		return nil, fmt.Errorf("%s: function %s not found", k.File, k.Name)
	}
	c := &Copy{Copies: "1"}
	var edits []edit
	loops := 0
	for _, st := range fd.Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if len(st.Lhs) == 1 && isIdent(st.Lhs[0], "prof") {
				edits = append(edits, edit{off(st.Pos()), off(st.End()), "", true})
				c.Changes = append(c.Changes, fmt.Sprintf("removed `prof := pprof.Lookup(...)` (line %d)", fset.Position(st.Pos()).Line))
			}
		case *ast.DeferStmt:
			if mentions(st, "prof") {
				edits = append(edits, edit{off(st.Pos()), off(st.End()), "", true})
				c.Changes = append(c.Changes, fmt.Sprintf("removed the deferred wait and prof.WriteTo (lines %d-%d)", fset.Position(st.Pos()).Line, fset.Position(st.End()).Line))
			}
		case *ast.ForStmt:
			bound, op, ok := copyLoop(st)
			if !ok {
				continue
			}
			loops++
			n, _ := strconv.Atoi(bound.Value)
			if op == token.LEQ {
				n++
			}
			c.Copies = strconv.Itoa(n)
			if f == Single {
				repl := "1"
				if op == token.LEQ {
					repl = "0"
				}
				edits = append(edits, edit{off(bound.Pos()), off(bound.End()), repl, false})
				c.Changes = append(c.Changes, fmt.Sprintf("loop bound `i %s %s` -> `i %s %s` (line %d): one copy instead of %d", op, bound.Value, op, repl, fset.Position(bound.Pos()).Line, n))
			}
		}
	}
	if loops > 1 {
		return nil, fmt.Errorf("%s: %d top-level copy loops in %s", k.File, loops, k.Name)
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("%s: no profiling scaffolding found in %s", k.File, k.Name)
	}
	// Imports that only the removed statements used.
	removed := func(p token.Pos) bool {
		o := off(p)
		for _, e := range edits {
			if e.removes && o >= e.from && o < e.to {
				return true
			}
		}
		return false
	}
	used := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok && !removed(id.Pos()) {
				used[id.Name] = true
			}
		}
		return true
	})
	for _, im := range file.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		if name == "_" || name == "." || used[name] {
			continue
		}
		edits = append(edits, edit{off(im.Pos()), off(im.End()), "", true})
		c.Changes = append(c.Changes, fmt.Sprintf("dropped the import %q, now unused", path))
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), k.Src...)
	for _, e := range edits {
		text := e.text
		if e.removes {
			// Keep the lines: positions in reports are the original's.
			text = strings.Repeat("\n", strings.Count(string(out[e.from:e.to]), "\n"))
		}
		out = append(out[:e.from], append([]byte(text), out[e.to:]...)...)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), k.File, out, 0); err != nil {
		return nil, fmt.Errorf("%s: prepared copy does not parse: %v", k.File, err)
	}
	c.Src = out
	return c, nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func mentions(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// copyLoop recognizes `for i := 0; i < N; i++` (or `<=`) with a go statement
// in its body, and returns N's literal.
func copyLoop(st *ast.ForStmt) (*ast.BasicLit, token.Token, bool) {
	init, ok := st.Init.(*ast.AssignStmt)
	if !ok || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return nil, 0, false
	}
	if z, ok := init.Rhs[0].(*ast.BasicLit); !ok || z.Value != "0" {
		return nil, 0, false
	}
	cond, ok := st.Cond.(*ast.BinaryExpr)
	if !ok || (cond.Op != token.LSS && cond.Op != token.LEQ) {
		return nil, 0, false
	}
	bound, ok := cond.Y.(*ast.BasicLit)
	if !ok || bound.Kind != token.INT {
		return nil, 0, false
	}
	hasGo := false
	ast.Inspect(st.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			hasGo = true
		}
		return !hasGo
	})
	return bound, cond.Op, hasGo
}

// ModuleName is the module path of the temporary modules. Reports name the
// kernel's functions "goker.F" (heddle) or "main.F" (native stacks).
const ModuleName = "goker"

// heddleTest is the test file heddle explores.
const heddleTest = `package main

import "testing"

// TestKernel runs one GoKer kernel; generated by heddle.dev/internal/goker.
func TestKernel(t *testing.T) { %s() }
`

func heddleTestFile(k *Kernel) string { return fmt.Sprintf(heddleTest, k.Name) }

// WriteModule writes a module in dir with the prepared kernel, main.go of
// the kernel directory (unchanged: register, yieldCount) and the test file.
func (k *Kernel) WriteModule(dir string, c *Copy, test string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{
		"go.mod":         []byte("module " + ModuleName + "\n\ngo 1.24\n"),
		"main.go":        k.Main,
		k.File:           c.Src,
		"kernel_test.go": []byte(test),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
