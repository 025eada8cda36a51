package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
)

// ---- native names of go statements' functions ----

// A goroutine that has not started yet shows in a stack dump as its
// function at its start, and a leak checker (goleak) compares those
// names. The function is the one the compiler gives the go statement,
// which the rewritten code does not have: rt.Go's argument is a function
// literal of the rewriter, named after the literals the rewriter adds.
// The compiler (cmd/compile/internal/typecheck's normalizeGoDeferCall and
// ir's closureName) gives a go statement:
//
//   - the function called, when the call is a function call (not a
//     method call, a builtin, a conversion or a generic function's
//     instance) of a signature without parameters and results: pkg.g for go g(), pkg.TestX.func1 for
//     go func() {}(), the target of a function value for go fn();
//   - else a wrapper named after the enclosing function: pkg.TestX.gowrap2,
//     numbered with the function's wrapped defer statements
//     (deferwrapN) in source order.
//
// A function literal is named pkg.F.funcN in a declared function F, and
// pkg.F.funcN.M in a literal, numbered in source order per enclosing
// function. Literals in range-over-func loop bodies and go statements
// there count in the enclosing function, as they do in the source.

// goNameKind says how rt starts a go statement's goroutine (rtGoFunc).
type goNameKind int

const (
	goAs   goNameKind = iota // rt.Go's literal is the named function natively (wrapper or literal)
	goCall                   // rt.Go's literal only calls the function natively started, a func() value
)

// goName is the native name of a go statement's function, relative to
// the package (".TestX.gowrap1"): rt prefixes the package's linker name,
// which a dump knows better than the rewriter (main, test variants).
type goName struct {
	name string
	kind goNameKind
}

// goNames computes the native name of the function of every go
// statement in f.
// It also returns the native name of every function literal.
func goNames(f *ast.File, info *types.Info, pkg *types.Package) (map[*ast.GoStmt]goName, map[*ast.FuncLit]string) {
	out := make(map[*ast.GoStmt]goName)
	lits := make(map[*ast.FuncLit]string)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := declName(fd)
		if name == "" {
			continue
		}
		w := &goNamer{info: info, pkg: pkg, out: out, lits: lits}
		w.fn(name, false, fd.Body)
		for g, lit := range w.litGo {
			if n, ok := w.lits[lit]; ok {
				out[g] = goName{name: n, kind: goAs}
			}
		}
	}
	return out, lits
}

// litNames names the function literals of a function's body as the
// compiler does (goNamer.fn): name is the function's relative name,
// closure whether it is a literal.
func litNames(name string, closure bool, body *ast.BlockStmt, out map[*ast.FuncLit]string) {
	funcs := 0
	ast.Inspect(body, func(n ast.Node) bool {
		fl, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		funcs++
		sep := ".func"
		if closure {
			sep = "."
		}
		lit := name + sep + strconv.Itoa(funcs)
		out[fl] = lit
		litNames(lit, true, fl.Body, out)
		return false
	})
}

// funcNames is the declaration that tells rt the native names of the
// file's function literals whose compiled names differ (the rewriter's
// literals come before them, or the test's body is one):
//
//	var _ = rt.FuncNames(".TestX.func1.3", ".TestX.func2", ...)
//
// or nil when none differs. lits are the native names (goNames).
func (r *rewriter) funcNames(lits map[*ast.FuncLit]string) ast.Decl {
	compiled := make(map[*ast.FuncLit]string)
	for _, d := range r.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			if name := declName(fd); name != "" {
				litNames(name, false, fd.Body, compiled)
			}
		}
	}
	type pair struct{ compiled, native string }
	var pairs []pair
	for fl, c := range compiled {
		if n, ok := lits[fl]; ok && n != c {
			pairs = append(pairs, pair{c, n})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].compiled < pairs[j].compiled })
	pos := r.file.Package
	var args []ast.Expr
	for _, p := range pairs {
		for _, s := range []string{p.compiled, p.native} {
			args = append(args, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(s)})
		}
	}
	return &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{
		Names:  []*ast.Ident{ident("_", pos)},
		Values: []ast.Expr{r.rtCall("FuncNames", pos, args...)},
	}}}
}

type goNamer struct {
	info  *types.Info
	pkg   *types.Package
	out   map[*ast.GoStmt]goName
	lits  map[*ast.FuncLit]string
	litGo map[*ast.GoStmt]*ast.FuncLit // go func() {...}(): named when its literal is
}

// fn names the literals and go statements of a function's body; name is
// the function's (relative) name, closure whether it is a literal.
func (w *goNamer) fn(name string, closure bool, body *ast.BlockStmt) {
	funcs, wraps := 0, 0
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			funcs++
			sep := ".func"
			if closure {
				sep = "."
			}
			lit := name + sep + strconv.Itoa(funcs)
			w.lits[n] = lit
			w.fn(lit, true, n.Body)
			return false
		case *ast.DeferStmt:
			if w.wrapped(n.Call) {
				wraps++
			}
		case *ast.GoStmt:
			if w.wrapped(n.Call) {
				wraps++
				w.out[n] = goName{name: name + ".gowrap" + strconv.Itoa(wraps), kind: goAs}
				return true
			}
			switch fun := ast.Unparen(n.Call.Fun).(type) {
			case *ast.FuncLit:
				if w.litGo == nil {
					w.litGo = make(map[*ast.GoStmt]*ast.FuncLit)
				}
				w.litGo[n] = fun
			default:
				w.out[n] = goName{kind: goCall}
			}
		}
		return true
	})
}

// wrapped reports whether the compiler wraps a go or defer statement's
// call in a function of its own (normalizeGoDeferCall): every call but a
// function call of a signature without parameters and results.
func (w *goNamer) wrapped(call *ast.CallExpr) bool {
	fun := ast.Unparen(call.Fun)
	tv, ok := w.info.Types[fun]
	if !ok || tv.IsBuiltin() || tv.IsType() {
		return true
	}
	x := fun
	switch f := fun.(type) {
	case *ast.IndexExpr:
		x = f.X
	case *ast.IndexListExpr:
		x = f.X
	}
	if id := instIdent(x); id != nil {
		if _, ok := w.info.Instances[id]; ok {
			return true // a generic function's instance: called with its dictionary
		}
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s, ok := w.info.Selections[sel]; ok && s.Kind() != types.FieldVal {
			return true // a method call, or a method expression (its receiver is a parameter)
		}
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok {
		return true
	}
	return sig.Params().Len()+sig.Results().Len() != 0
}

// declName is the relative native name of a declared function: .F,
// .T.M, .(*T).M, .F[...], or "" when not known (init functions, which
// the compiler numbers in the package, and blank functions).
func declName(fd *ast.FuncDecl) string {
	name := fd.Name.Name
	if name == "init" || name == "_" {
		return ""
	}
	if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
		name += "[...]"
	}
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return "." + name
	}
	t := fd.Recv.List[0].Type
	ptr := false
	if s, ok := t.(*ast.StarExpr); ok {
		ptr, t = true, s.X
	}
	generic := false
	switch x := t.(type) {
	case *ast.IndexExpr:
		t, generic = x.X, true
	case *ast.IndexListExpr:
		t, generic = x.X, true
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return ""
	}
	recv := id.Name
	if generic {
		recv += "[...]"
	}
	if ptr {
		return ".(*" + recv + ")." + name
	}
	return "." + recv + "." + name
}

// goStart is the call of rt that starts a go statement's goroutine, with
// the native name of its function when known: rt.GoAs(name, f) when f
// (the statement's literal, or the wrapper the rewriter makes) is it,
// rt.GoCall(fn, f) when f only calls fn, a func() (go g(), go fn()),
// whose target is it.
func (r *rewriter) goStart(pos token.Pos, call *ast.CallExpr, n goName) ast.Expr {
	str := func(s string) ast.Expr {
		return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(s)}
	}
	if fl, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok && len(call.Args) == 0 && len(fl.Type.Params.List) == 0 && fl.Type.Results == nil {
		// go func() { ... }() starts the literal itself.
		if n.name == "" {
			return r.rtCall("Go", pos, fl)
		}
		return r.rtCall("GoAs", pos, str(n.name), fl)
	}
	lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}}, Body: block(pos, &ast.ExprStmt{X: call})}
	switch {
	case n.kind == goCall && len(call.Args) == 0 && r.plainName(call.Fun):
		// The function value was evaluated into a temporary (or is a
		// declared function's name): naming it twice is evaluating it once.
		return r.rtCall("GoCall", pos, call.Fun, lit)
	case n.name == "":
		return r.rtCall("Go", pos, lit)
	}
	return r.rtCall("GoAs", pos, str(n.name), lit)
}

// plainName reports whether a function expression is an identifier or a
// qualified identifier of a package other than rt, whose evaluation has
// no effect.
func (r *rewriter) plainName(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok || x.Name == r.rtName {
			return false
		}
		_, isPkg := r.info.Uses[x].(*types.PkgName)
		return isPkg
	}
	return false
}
