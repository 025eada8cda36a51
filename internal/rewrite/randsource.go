package rewrite

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// planRandSource plans the rewrite of the calls that make a random source
// (see rt/randsource.go): math/rand's NewSource(seed) becomes
// rt.RandNewSource(seed, clock), and math/rand/v2's New(src), when src is
// made in the call by NewPCG or NewChaCha8, rt.RandV2New(src, clock);
// clock says whether the seed expression reads the clock. It reports
// whether it planned one.
func (r *rewriter) planRandSource(call *ast.CallExpr, path, name string) bool {
	if len(call.Args) == 0 || call.Ellipsis.IsValid() {
		return false
	}
	var rtName string
	switch {
	case path == "math/rand" && name == "NewSource" && len(call.Args) == 1:
		rtName = "RandNewSource"
	case path == "math/rand/v2" && name == "New" && len(call.Args) == 1:
		src, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := r.funcObj(src.Fun)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != path || (fn.Name() != "NewPCG" && fn.Name() != "NewChaCha8") {
			return false
		}
		rtName = "RandV2New"
	default:
		return false
	}
	clock := r.readsClock(call.Args[0])
	r.plans[call] = func(c *astutil.Cursor) {
		call := c.Node().(*ast.CallExpr)
		flag := ident("false", call.Rparen)
		if clock {
			flag = ident("true", call.Rparen)
		}
		out := r.rtCall(rtName, call.Pos(), call.Args[0], flag)
		out.Lparen, out.Rparen = call.Lparen, call.Rparen
		c.Replace(out)
	}
	return true
}

// readsClock reports whether e calls time.Now, time.Since or time.Until:
// a seed taken from the clock, which the program means to be random.
func (r *rewriter) readsClock(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		var id *ast.Ident
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id = n.Sel
		case *ast.Ident:
			id = n
		default:
			return true
		}
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Signature().Recv() == nil {
			switch fn.Name() {
			case "Now", "Since", "Until":
				found = true
			}
		}
		return true
	})
	return found
}
