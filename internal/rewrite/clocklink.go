package rewrite

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// clockLinks are the runtime's clock readers, random number generators and
// memory hash that packages declare as body-less functions with //go:linkname, to skip
// time.Now's or math/rand's cost (sethvargo/go-limiter's internal/fasttime
// links time.now, puzpuzpuz/xsync links runtime.cheaprand): the linkname
// target -> the rt function that replaces it and the parameter and result
// kinds both have. Such a function reads the real clock while the test's
// time.Now and time.Sleep are virtual, or draws numbers that differ from
// run to run of one schedule (so heddle cannot explore the test), so the
// rewrite gives it a body calling rt.
var clockLinks = map[string]struct {
	rt      string
	params  []types.BasicKind
	results []types.BasicKind
}{
	"time.now":         {"TimeNow", nil, []types.BasicKind{types.Int64, types.Int32, types.Int64}},
	"runtime.nanotime": {"Nanotime", nil, []types.BasicKind{types.Int64}},
	"time.runtimeNano": {"Nanotime", nil, []types.BasicKind{types.Int64}},
	// The runtime's generators: cheap* from Go 1.22 on, fastrand* before
	// (and still linkable), rand from Go 1.22 on.
	"runtime.cheaprand":   {"Cheaprand", nil, []types.BasicKind{types.Uint32}},
	"runtime.cheaprand64": {"Cheaprand64", nil, []types.BasicKind{types.Int64}},
	"runtime.cheaprandn":  {"Cheaprandn", []types.BasicKind{types.Uint32}, []types.BasicKind{types.Uint32}},
	"runtime.fastrand":    {"Cheaprand", nil, []types.BasicKind{types.Uint32}},
	"runtime.fastrandn":   {"Cheaprandn", []types.BasicKind{types.Uint32}, []types.BasicKind{types.Uint32}},
	"runtime.fastrand64":  {"RuntimeRand", nil, []types.BasicKind{types.Uint64}},
	"runtime.rand":        {"RuntimeRand", nil, []types.BasicKind{types.Uint64}},
	// The runtime's hash of memory, keyed by a random key of the process
	// (dgraph-io/ristretto's z.MemHash hashes keys with it): a schedule
	// found in one process diverges when replayed in another.
	"runtime.memhash": {"Memhash", []types.BasicKind{types.UnsafePointer, types.Uintptr, types.Uintptr}, []types.BasicKind{types.Uintptr}},
}

// linkDoes says in the rewritten comment what the function now does.
func linkDoes(rt string) string {
	switch rt {
	case "TimeNow", "Nanotime":
		return "reads the virtual clock"
	case "Memhash":
		return "hashes with a key fixed across processes"
	}
	return "draws from the run's random source"
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

// planClockLink gives a body-less function linknamed to a clock reader or
// a random number generator of the runtime (clockLinks) a body that
// returns rt's reading of the virtual clock or rt's number drawn from the
// run's random source, and drops the directives a function with a body
// cannot have.
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
	if sig.Params().Len() != len(want.params) || sig.Variadic() || sig.Results().Len() != len(want.results) {
		return
	}
	for i, k := range want.params {
		if !types.Identical(sig.Params().At(i).Type(), types.Typ[k]) {
			return
		}
	}
	for i, k := range want.results {
		if !types.Identical(sig.Results().At(i).Type(), types.Typ[k]) {
			return
		}
	}
	r.plans[fd] = func(c *astutil.Cursor) {
		fd := c.Node().(*ast.FuncDecl)
		pos := fd.Type.End()
		// The arguments: the parameters, named if they are not.
		var args []ast.Expr
		for _, f := range fd.Type.Params.List {
			if len(f.Names) == 0 {
				f.Names = []*ast.Ident{ident("_", f.Pos())}
			}
			for j, n := range f.Names {
				if n.Name == "_" {
					f.Names[j] = ident("heddleArg"+strconv.Itoa(len(args)), n.Pos())
				}
				args = append(args, ident(f.Names[j].Name, pos))
			}
		}
		fd.Body = block(pos, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.rtCall(want.rt, pos, args...)}})
		link.Text = "// heddle: " + linkDoes(want.rt) + " (was " + strings.TrimPrefix(link.Text, "//") + ")"
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
