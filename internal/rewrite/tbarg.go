package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// planTBArgs wraps a *testing.T or testing.TB passed as an argument whose
// parameter is an interface of the callee's own, other than testing.TB,
// that testing.TB satisfies: testify's assert.TestingT in assert.Equal(t,
// ...), require.New(t), a helper's TestingT:
//
//	assert.Equal(t, a, b)  ->  assert.Equal(rt.TBArg(t), a, b)
//
// The callee calls t's methods through its interface, which the rewriter
// does not route to the run's T (and its package may not be rewritten at
// all), so its failures would reach the real T unseen. rt.TBArg's value
// routes them to the run's T. A parameter of type testing.TB is left
// alone: rewritten callees route its calls, and unrewritten ones may
// assert it back to *testing.T.
func (r *rewriter) planTBArgs(call *ast.CallExpr) {
	tv, ok := r.info.Types[call.Fun]
	if !ok || tv.IsType() || tv.IsBuiltin() || tv.Type == nil {
		return
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok {
		return
	}
	params := sig.Params()
	for i, arg := range call.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			if call.Ellipsis.IsValid() {
				continue
			}
			s, ok := params.At(params.Len() - 1).Type().Underlying().(*types.Slice)
			if !ok {
				continue
			}
			pt = s.Elem()
		case i < params.Len():
			pt = params.At(i).Type()
		default:
			continue
		}
		at := r.typeOf(arg)
		if at == nil || !(isTestingT(at) || isTestingTB(at)) || r.plans[arg] != nil {
			continue
		}
		tb := testingTBOf(at)
		if tb == nil || !wrapsTB(pt, tb) {
			continue
		}
		r.plans[arg] = func(c *astutil.Cursor) {
			e := c.Node().(ast.Expr)
			w := r.rtCall("TBArg", e.Pos(), e)
			w.Rparen = e.End()
			c.Replace(w)
		}
	}
}

// testingTBOf returns testing.TB, from the package of t (*testing.T or
// testing.TB).
func testingTBOf(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil
	}
	tb, ok := n.Obj().Pkg().Scope().Lookup("TB").(*types.TypeName)
	if !ok {
		return nil
	}
	return tb.Type()
}

// wrapsTB reports whether a testing.TB argument for a parameter of type pt
// should be wrapped: pt is a non-empty interface other than testing.TB that
// testing.TB satisfies.
func wrapsTB(pt, tb types.Type) bool {
	if _, isTP := types.Unalias(pt).(*types.TypeParam); isTP {
		return false
	}
	iface, ok := pt.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 || isTestingTB(pt) {
		return false
	}
	return types.AssignableTo(tb, pt)
}

// planTBCompare rewrites a comparison of a *testing.T or testing.TB with
// a value of an interface type, which may hold the wrapper planTBArgs
// passed for it (a helper that keeps its TestingT: zerolog's
// `w := NewTestWriter(t); if w.T != t`), into one that sees through the
// wrapper:
//
//	w.T != t  ->  !rt.TBEqual(w.T, t)
func (r *rewriter) planTBCompare(b *ast.BinaryExpr) {
	if (b.Op != token.EQL && b.Op != token.NEQ) || r.plans[b] != nil {
		return
	}
	isT := func(t types.Type) bool { return t != nil && (isTestingT(t) || isTestingTB(t)) }
	isIface := func(t types.Type) bool { return t != nil && types.IsInterface(t) }
	tx, ty := r.typeOf(b.X), r.typeOf(b.Y)
	if !(isT(tx) && isIface(ty) || isT(ty) && isIface(tx)) {
		return
	}
	r.plans[b] = func(c *astutil.Cursor) {
		n := c.Node().(*ast.BinaryExpr)
		var e ast.Expr = r.rtCall("TBEqual", n.OpPos, n.X, n.Y)
		if n.Op == token.NEQ {
			e = &ast.UnaryExpr{OpPos: n.Pos(), Op: token.NOT, X: e}
		}
		c.Replace(e)
	}
}
