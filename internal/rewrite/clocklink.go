package rewrite

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// clockLinks are the runtime's clock readers that packages declare as
// body-less functions with //go:linkname, to skip time.Now's cost
// (sethvargo/go-limiter's internal/fasttime links time.now): the linkname
// target -> the rt function that replaces it and the result kinds both
// have. Such a function reads the real clock while the test's time.Now
// and time.Sleep are virtual, so the rewrite gives it a body calling rt.
var clockLinks = map[string]struct {
	rt      string
	results []types.BasicKind
}{
	"time.now":         {"TimeNow", []types.BasicKind{types.Int64, types.Int32, types.Int64}},
	"runtime.nanotime": {"Nanotime", []types.BasicKind{types.Int64}},
	"time.runtimeNano": {"Nanotime", []types.BasicKind{types.Int64}},
}

// clockLinkTarget returns the clock reader that the //go:linkname comment
// text links local to, or "".
func clockLinkTarget(text, local string) string {
	f := strings.Fields(text)
	if len(f) != 3 || f[0] != "//go:linkname" || (local != "" && f[1] != local) {
		return ""
	}
	if _, ok := clockLinks[f[2]]; !ok {
		return ""
	}
	return f[2]
}

// planClockLink gives a body-less function linknamed to a clock reader of
// the runtime (clockLinks) a body that returns rt's reading of the virtual
// clock, and drops the directives a function with a body cannot have.
func (r *rewriter) planClockLink(fd *ast.FuncDecl) {
	if fd.Body != nil || fd.Recv != nil || fd.Type.TypeParams != nil {
		return
	}
	var link *ast.Comment
	target := ""
	for _, cg := range r.file.Comments {
		for _, c := range cg.List {
			if t := clockLinkTarget(c.Text, fd.Name.Name); t != "" {
				link, target = c, t
			}
		}
	}
	if link == nil {
		return
	}
	fn, ok := r.info.Defs[fd.Name].(*types.Func)
	if !ok {
		return
	}
	sig := fn.Signature()
	want := clockLinks[target]
	if sig.Params().Len() != 0 || sig.Variadic() || sig.Results().Len() != len(want.results) {
		return
	}
	for i, k := range want.results {
		if !types.Identical(sig.Results().At(i).Type(), types.Typ[k]) {
			return
		}
	}
	r.plans[fd] = func(c *astutil.Cursor) {
		fd := c.Node().(*ast.FuncDecl)
		pos := fd.Type.End()
		fd.Body = block(pos, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.rtCall(want.rt, pos)}})
		link.Text = "// heddle: reads the virtual clock (was " + strings.TrimPrefix(link.Text, "//") + ")"
		if fd.Doc != nil {
			for _, c := range fd.Doc.List {
				// Directives only a body-less function may have.
				if c.Text == "//go:noescape" || strings.HasPrefix(c.Text, "//go:noescape ") {
					c.Text = "// heddle: was " + strings.TrimPrefix(c.Text, "//")
				}
			}
		}
	}
}
