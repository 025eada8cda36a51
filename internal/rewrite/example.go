package rewrite

import (
	"go/ast"
	"go/doc"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// planExampleFunc plans an example that go test runs, one with an output
// comment:
//
//	func ExampleX() { body // Output: want }
//
// becomes
//
//	func ExampleX() {
//		if rt.Example("ExampleX", "want", false, ExampleX) {
//			return
//		}
//		body // Output: want
//	}
//
// rt.Example explores ExampleX as a test named ExampleX, each run's
// standard output compared with want as go test compares it (unordered
// for an "Unordered output:" comment), and returns true; called in a run,
// it returns false, and the body runs. The body's end is left as it is:
// the output comment must stay the last comment of the function, or go
// test would no longer run it as an example.
func (r *rewriter) planExampleFunc(fd *ast.FuncDecl) {
	if !strings.HasSuffix(r.filename, "_test.go") || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Example") {
		return
	}
	if fd.Type.Params.NumFields() != 0 || fd.Type.Results.NumFields() != 0 || fd.Type.TypeParams != nil {
		return
	}
	var ex *doc.Example
	for _, e := range r.examples() {
		if "Example"+e.Name == fd.Name.Name {
			ex = e
		}
	}
	if ex == nil || ex.Output == "" && !ex.EmptyOutput {
		return // compiled, not run
	}
	r.plans[fd] = func(c *astutil.Cursor) {
		fd := c.Node().(*ast.FuncDecl)
		pos := fd.Body.Lbrace
		unordered := "false"
		if ex.Unordered {
			unordered = "true"
		}
		call := r.rtCall("Example", pos,
			&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(fd.Name.Name)},
			&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(ex.Output)},
			ident(unordered, pos), ident(fd.Name.Name, pos))
		explore := &ast.IfStmt{If: pos, Cond: call, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos}}, Rbrace: pos}}
		fd.Body.List = append([]ast.Stmt{explore}, fd.Body.List...)
	}
}

// examples are the examples of the file, as go test finds them.
func (r *rewriter) examples() []*doc.Example {
	if r.exampleList == nil {
		r.exampleList = doc.Examples(r.file)
		if r.exampleList == nil {
			r.exampleList = []*doc.Example{}
		}
	}
	return r.exampleList
}
