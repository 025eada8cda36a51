package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// planTBArgs decides what a *testing.T (or a value of an interface that
// may hold one) passed as an argument becomes. Where the parameter is an
// interface of the callee's own, other than testing.TB, that testing.TB
// satisfies (testify's assert.TestingT in assert.Equal(t, ...),
// require.New(t), a helper's TestingT), the callee calls t's methods
// through that interface:
//
//   - a callee the rewriter rewrites gets t as it is: its calls through
//     the interface go to the run's T (rt.TBRoute, classifyMethod), and
//     whatever it does with t (%T, a type switch, a map key, ==) sees the
//     *testing.T, as natively;
//
//   - one it does not rewrite (a helper module without concurrency), or
//     one it cannot name (a function value, an interface's method), gets
//     rt.TBArg(t), a wrapper whose methods go to the run's T, so that a
//     failure reported through it is a bug of the run:
//
//     check.Equal(t, a, b)  ->  check.Equal(rt.TBArg(t), a, b)
//
// A value of a helper's interface passed on to such a callee is wrapped
// when it holds a *testing.T (rt.TBArgOf). A parameter of type testing.TB
// is left alone: rewritten callees route its calls, and unrewritten ones
// may assert it back to *testing.T. A value of testing.TB or of such an
// interface passed as an empty interface (fmt's %T, reflect.TypeOf) is
// unwrapped (rt.TBUnwrap): it may hold the wrapper an unrewritten helper
// kept.
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
	rewritten := -1 // unknown yet
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
		if at == nil || r.tbWrap[arg] != "" {
			continue
		}
		if isEmptyInterface(pt) {
			if isTestingTB(at) || tbLike(at) {
				r.tbWrap[arg] = "TBUnwrap"
			}
			continue
		}
		var wrap string
		switch {
		case isTestingT(at) || isTestingTB(at):
			if tb := testingTBOf(at); tb == nil || !wrapsTB(pt, tb) {
				continue
			}
			wrap = "TBArg"
		case tbLike(at):
			if _, isTP := types.Unalias(pt).(*types.TypeParam); isTP || !tbLike(pt) {
				continue
			}
			wrap = "TBArgOf"
		default:
			continue
		}
		if rewritten < 0 {
			rewritten = 0
			if r.calleeRewritten(call.Fun) {
				rewritten = 1
			}
		}
		if rewritten == 0 {
			r.tbWrap[arg] = wrap
		}
	}
}

// calleeRewritten reports whether fun names a function or a method of a
// concrete type that the rewriter rewrites.
func (r *rewriter) calleeRewritten(fun ast.Expr) bool {
	var obj types.Object
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		obj = r.info.Uses[f]
	case *ast.SelectorExpr:
		if s, ok := r.info.Selections[f]; ok {
			if s.Kind() != types.MethodVal {
				return false
			}
			obj = s.Obj()
		} else {
			obj = r.info.Uses[f.Sel]
		}
	case *ast.IndexExpr:
		return r.calleeRewritten(f.X)
	case *ast.IndexListExpr:
		return r.calleeRewritten(f.X)
	}
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return false
	}
	return !r.notRewritten(fn.Pkg().Path())
}

// isEmptyInterface reports whether t is an interface without methods
// (any), not a type parameter.
func isEmptyInterface(t types.Type) bool {
	if _, isTP := types.Unalias(t).(*types.TypeParam); isTP {
		return false
	}
	iface, ok := t.Underlying().(*types.Interface)
	return ok && iface.NumMethods() == 0 && iface.IsMethodSet()
}

// tbLike reports whether t is an interface other than testing.TB with
// methods, each of them one of testing.TB's (by name and signature): a
// helper's TestingT, whose values rewritten code may get a *testing.T in.
// testing.TB is not looked up: a helper such as testify's assert does not
// import package testing.
func tbLike(t types.Type) bool {
	if t == nil || isTestingTB(t) {
		return false
	}
	iface, ok := t.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return false
	}
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		is, ok := tbMethods[m.Name()]
		if !ok || !is(m.Signature()) {
			return false
		}
	}
	return true
}

// tbMethods are testing.TB's exported methods, each with a check of its
// signature. Those of a newer Go than the toolchain's are harmless: the
// rt functions check at run time that the run's T has the interface's
// methods.
var tbMethods = map[string]func(*types.Signature) bool{
	"Error": sigArgs, "Fatal": sigArgs, "Log": sigArgs, "Skip": sigArgs,
	"Errorf": sigFormat, "Fatalf": sigFormat, "Logf": sigFormat, "Skipf": sigFormat,
	"Fail": sigNone, "FailNow": sigNone, "SkipNow": sigNone, "Helper": sigNone,
	"Failed": sigReturns(types.Bool), "Skipped": sigReturns(types.Bool),
	"Name": sigReturns(types.String), "TempDir": sigReturns(types.String), "ArtifactDir": sigReturns(types.String),
	"Cleanup": func(s *types.Signature) bool {
		if s.Params().Len() != 1 || s.Results().Len() != 0 || s.Variadic() {
			return false
		}
		f, ok := s.Params().At(0).Type().Underlying().(*types.Signature)
		return ok && f.Params().Len() == 0 && f.Results().Len() == 0
	},
	"Setenv": sigStrings(2), "Attr": sigStrings(2), "Chdir": sigStrings(1),
	"Context": func(s *types.Signature) bool {
		return s.Params().Len() == 0 && s.Results().Len() == 1 && namedIn(s.Results().At(0).Type(), "context", "Context")
	},
	"Output": func(s *types.Signature) bool {
		return s.Params().Len() == 0 && s.Results().Len() == 1 && namedIn(s.Results().At(0).Type(), "io", "Writer")
	},
}

// sigArgs: func(args ...any).
func sigArgs(s *types.Signature) bool {
	return s.Variadic() && s.Params().Len() == 1 && s.Results().Len() == 0 && isAnySlice(s.Params().At(0).Type())
}

// sigFormat: func(format string, args ...any).
func sigFormat(s *types.Signature) bool {
	return s.Variadic() && s.Params().Len() == 2 && s.Results().Len() == 0 &&
		isBasic(s.Params().At(0).Type(), types.String) && isAnySlice(s.Params().At(1).Type())
}

func sigNone(s *types.Signature) bool {
	return s.Params().Len() == 0 && s.Results().Len() == 0
}

func sigReturns(k types.BasicKind) func(*types.Signature) bool {
	return func(s *types.Signature) bool {
		return s.Params().Len() == 0 && s.Results().Len() == 1 && isBasic(s.Results().At(0).Type(), k)
	}
}

func sigStrings(n int) func(*types.Signature) bool {
	return func(s *types.Signature) bool {
		if s.Params().Len() != n || s.Results().Len() != 0 || s.Variadic() {
			return false
		}
		for i := 0; i < n; i++ {
			if !isBasic(s.Params().At(i).Type(), types.String) {
				return false
			}
		}
		return true
	}
}

func isBasic(t types.Type, k types.BasicKind) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Kind() == k
}

// isAnySlice reports whether t is []any.
func isAnySlice(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && isEmptyInterface(s.Elem())
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

// planTBAssert unwraps the operand of a type assertion, or of a type
// switch whose cases are body's, when the operand may hold rt.TBArg's
// wrapper (its type is any, testing.TB or a helper's TestingT) and a type
// asserted is one the T has and the wrapper has not: *testing.T, testing.TB
// (the T itself, as natively), an interface with one of *testing.T's other
// methods (Run, Parallel, Deadline):
//
//	x.(*testing.T)  ->  rt.TBUnwrap(x).(*testing.T)
func (r *rewriter) planTBAssert(a *ast.TypeAssertExpr, body *ast.BlockStmt) {
	if a == nil {
		return
	}
	xt := r.typeOf(a.X)
	if xt == nil || !(isEmptyInterface(xt) || isTestingTB(xt) || tbLike(xt)) {
		return
	}
	var asserted []types.Type
	if a.Type != nil {
		if body != nil {
			return
		}
		asserted = append(asserted, r.typeOf(a.Type))
	} else {
		if body == nil {
			return // the switch's own plan
		}
		for _, s := range body.List {
			cc, ok := s.(*ast.CaseClause)
			if !ok {
				continue
			}
			for _, e := range cc.List {
				asserted = append(asserted, r.typeOf(e))
			}
		}
	}
	for _, t := range asserted {
		if onlyTHas(t) {
			r.tbWrap[a.X] = "TBUnwrap"
			return
		}
	}
}

// typeSwitchAssert returns the x.(type) of a type switch.
func typeSwitchAssert(s *ast.TypeSwitchStmt) *ast.TypeAssertExpr {
	var e ast.Expr
	switch a := s.Assign.(type) {
	case *ast.ExprStmt:
		e = a.X
	case *ast.AssignStmt:
		if len(a.Rhs) == 1 {
			e = a.Rhs[0]
		}
	}
	ta, _ := ast.Unparen(e).(*ast.TypeAssertExpr)
	return ta
}

// onlyTHas reports whether t is a type that a value of *testing.T (or B,
// or F) has and rt.TBArg's wrapper has not.
func onlyTHas(t types.Type) bool {
	if t == nil {
		return false
	}
	if isTestingTB(t) {
		return true
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return namedIn(p.Elem(), "testing", "T") || namedIn(p.Elem(), "testing", "B") || namedIn(p.Elem(), "testing", "F")
	}
	iface, ok := t.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 || tbLike(t) {
		return false
	}
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		if is, ok := tbMethods[m.Name()]; ok && !is(m.Signature()) || !ok && !tOnlyMethods[m.Name()] {
			return false // error's Error, for one
		}
	}
	return true
}

// tOnlyMethods are the methods of *testing.T, *testing.B and *testing.F
// that testing.TB does not have.
var tOnlyMethods = map[string]bool{
	"Run": true, "Parallel": true, "Deadline": true,
	"ResetTimer": true, "StartTimer": true, "StopTimer": true, "ReportAllocs": true,
	"ReportMetric": true, "SetBytes": true, "SetParallelism": true, "RunParallel": true,
	"Elapsed": true, "Loop": true, "Add": true, "Fuzz": true,
}

// planTBKey unwraps key, used with a map of type mt (m[key], delete(m,
// key), a key of a map literal), when the map's keys are testing.TB or a
// helper's TestingT: a wrapper an unrewritten helper kept finds what was
// stored with t, as natively.
//
//	m[w.T]  ->  m[rt.TBKey(w.T)]
func (r *rewriter) planTBKey(mt types.Type, key ast.Expr) {
	if mt == nil || key == nil || r.tbWrap[key] != "" {
		return
	}
	m, ok := mt.Underlying().(*types.Map)
	if !ok {
		return
	}
	if k := m.Key(); !isTestingTB(k) && !tbLike(k) {
		return
	}
	if kt := r.typeOf(key); kt != nil && types.IsInterface(kt) {
		r.tbWrap[key] = "TBKey"
	}
}

// planTBKeys plans planTBKey for delete(m, key) and the keys of a map
// literal.
func (r *rewriter) planTBKeys(n ast.Node) {
	switch n := n.(type) {
	case *ast.CallExpr:
		if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 2 {
			if b, ok := r.info.Uses[id].(*types.Builtin); ok && b.Name() == "delete" {
				r.planTBKey(r.typeOf(n.Args[0]), n.Args[1])
			}
		}
	case *ast.CompositeLit:
		t := r.typeOf(n)
		for _, e := range n.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				r.planTBKey(t, kv.Key)
			}
		}
	}
}
