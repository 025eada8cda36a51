package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// rtPath is the import path of heddle's runtime package.
const rtPath = "heddle.dev/rt"

// File rewrites one parsed, type-checked file. It is what Rewrite uses per
// file, and what golden and fuzz tests call. goVersion is the language
// version of the file ("go1.21"); the generated code never needs a newer one.
// f is modified in place. The output carries //line directives naming the
// original positions of fset.
func File(fset *token.FileSet, f *ast.File, info *types.Info, pkg *types.Package, goVersion string) ([]byte, error) {
	out, _, err := rewriteFile(fset, f, info, pkg, goVersion, nil, nil)
	return out, err
}

// rewriteFile is File that also reports whether anything was rewritten,
// and that makes the racy statements of the file scheduling points.
// rewritten, when not nil, holds the import paths of the packages
// rewritten with it (planFileKeep).
func rewriteFile(fset *token.FileSet, f *ast.File, info *types.Info, pkg *types.Package, goVersion string, racy []RacyStmt, rewritten map[string]bool) ([]byte, bool, error) {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			// cgo files are compiled from generated sources; leave them.
			var buf bytes.Buffer
			err := printer.Fprint(&buf, fset, f)
			return buf.Bytes(), false, err
		}
	}
	r := newRewriter(fset, f, info, pkg, goVersion)
	r.rewritten = rewritten
	var lits map[*ast.FuncLit]string
	r.goNames, lits = goNames(f, info, pkg)
	r.racyPoints(racy)
	astutil.Apply(f, r.pre, r.post)
	if !r.changed {
		out, err := r.print(true)
		return out, false, err
	}
	if d := r.funcNames(lits); d != nil {
		f.Decls = append(f.Decls, d)
	}
	r.fixImports()
	f.Decls = append(f.Decls, r.aliasDecls...)
	prefix := r.raiseLanguage()
	out, err := r.print(true)
	if err != nil {
		return nil, false, err
	}
	out = append(prefix, out...)
	if _, perr := parser.ParseFile(token.NewFileSet(), "", out, parser.ParseComments); perr != nil {
		// Comments placed among generated code can, in rare layouts,
		// make the printer produce invalid code. Print again keeping only
		// the directives the compiler needs.
		out, err = r.print(false)
		if err != nil {
			return nil, false, err
		}
		out = append(prefix, out...)
		if _, perr := parser.ParseFile(token.NewFileSet(), "", out, parser.ParseComments); perr != nil {
			return nil, false, fmt.Errorf("rewrite %s: generated invalid code: %v", fset.Position(f.Package).Filename, perr)
		}
	}
	return out, true, nil
}

// upgradedLang is the language version under which rewritten files of
// modules older than go1.18 are compiled: the rt calls are generic, and any
// version from go1.18 to go1.21 keeps the old loop-variable rule, so the
// code means what it meant.
const upgradedLang = "go1.21"

// raiseLanguage makes a file whose language version is older than go1.18
// compile as upgradedLang, with a //go:build constraint (a file's
// constraint sets its language version, for any go line). It folds the
// constraint into the file's own //go:build or // +build lines, or returns
// the line to put before the file.
func (r *rewriter) raiseLanguage() []byte {
	if r.goVersion == "" || r.versionAtLeast(18) {
		return nil
	}
	var goBuild *ast.Comment
	var plus []*ast.Comment
	for _, cg := range r.file.Comments {
		if cg.Pos() >= r.file.Package {
			break
		}
		for _, c := range cg.List {
			switch {
			case constraint.IsGoBuild(c.Text):
				if goBuild == nil {
					goBuild = c
				}
			case constraint.IsPlusBuild(c.Text):
				plus = append(plus, c)
			}
		}
	}
	lang := &constraint.TagExpr{Tag: upgradedLang}
	if goBuild != nil {
		if x, err := constraint.Parse(goBuild.Text); err == nil {
			goBuild.Text = "//go:build " + (&constraint.AndExpr{X: x, Y: lang}).String()
			return nil
		}
	}
	if len(plus) > 0 {
		var x constraint.Expr
		for _, c := range plus {
			y, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			if x == nil {
				x = y
			} else {
				x = &constraint.AndExpr{X: x, Y: y}
			}
		}
		if x != nil {
			// The //go:build line replaces the // +build lines, which
			// it would otherwise have to match.
			plus[0].Text = "//go:build " + (&constraint.AndExpr{X: x, Y: lang}).String()
			for _, c := range plus[1:] {
				c.Text = "//"
			}
			return nil
		}
	}
	return []byte("//go:build " + upgradedLang + "\n\n")
}

type rewriter struct {
	fset      *token.FileSet
	file      *ast.File
	info      *types.Info
	pkg       *types.Package
	goVersion string
	filename  string

	names    map[string]bool   // identifiers that must not be reused
	imported map[string]string // import path -> name, for usable imports
	added    map[string]string // imports to add: path -> name
	rtName   string
	changed  bool

	plans      map[ast.Node]func(c *astutil.Cursor)
	skip       map[ast.Node]bool             // handled by an enclosing construct
	callee     map[ast.Expr]bool             // selector in call position
	operands   map[*ast.CallExpr][]*ast.Expr // evaluation slots of rewritten calls
	early      map[*ast.CallExpr]bool        // rewritten calls whose step is taken before their arguments are evaluated
	stmtCall   map[*ast.CallExpr]bool        // calls whose operands a go, defer or statement plan evaluates first (see stepLate)
	static     map[ast.Expr]bool             // generated function names, never hoisted
	label      map[ast.Stmt]*ast.Stmt        // generated block -> slot of the loop/switch a label must move to
	keep       map[ast.Expr]bool             // arguments that may be files kept by code that is not rewritten (planFileKeep)
	keepWriter map[ast.Expr]bool             // those of them kept as an io.Writer only (fileWriterCalls)
	racyFuncs  map[*ast.SelectorExpr]string  // calls of package maps on racy lines -> rt wrapper (racyMapFuncs)
	racyArgs   map[ast.Expr]bool             // arguments of testing's and log's printing calls on racy lines -> rt.RacyArg (printArgs)
	tbWrap     map[ast.Expr]string           // values that may be or hold a *testing.T -> rt function applied to them (tbarg.go)
	// rewritten holds the import paths of the packages rewritten with
	// this one, when known (nil: every package outside the standard
	// library is taken as rewritten).
	rewritten map[string]bool

	at         token.Pos         // where the type being spelled is written (see typeExprAt)
	aliases    map[string]string // type string -> file-level alias declared for it
	aliasDecls []ast.Decl        // the alias declarations

	exampleList []*doc.Example // the file's examples, once asked for (example.go)

	goNames map[*ast.GoStmt]goName // native names of the go statements' functions (gonames.go)
}

func newRewriter(fset *token.FileSet, f *ast.File, info *types.Info, pkg *types.Package, goVersion string) *rewriter {
	r := &rewriter{
		fset: fset, file: f, info: info, pkg: pkg, goVersion: goVersion,
		filename:   fset.Position(f.Package).Filename,
		names:      map[string]bool{},
		imported:   map[string]string{},
		added:      map[string]string{},
		plans:      map[ast.Node]func(*astutil.Cursor){},
		skip:       map[ast.Node]bool{},
		callee:     map[ast.Expr]bool{},
		operands:   map[*ast.CallExpr][]*ast.Expr{},
		early:      map[*ast.CallExpr]bool{},
		stmtCall:   map[*ast.CallExpr]bool{},
		static:     map[ast.Expr]bool{},
		label:      map[ast.Stmt]*ast.Stmt{},
		keep:       map[ast.Expr]bool{},
		keepWriter: map[ast.Expr]bool{},
		racyFuncs:  map[*ast.SelectorExpr]string{},
		racyArgs:   map[ast.Expr]bool{},
		tbWrap:     map[ast.Expr]string{},
		aliases:    map[string]string{},
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			r.names[id.Name] = true
		}
		return true
	})
	if pkg != nil {
		for _, n := range pkg.Scope().Names() {
			r.names[n] = true
		}
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		var name string
		if imp.Name != nil {
			name = imp.Name.Name
		} else if pn, ok := info.Implicits[imp].(*types.PkgName); ok {
			name = pn.Name()
		}
		if name != "" && name != "_" && name != "." {
			if _, dup := r.imported[path]; !dup {
				r.imported[path] = name
			}
		}
	}
	r.rtName = r.fresh("heddlert")
	return r
}

// fresh returns a name not used anywhere in the file or package scope.
func (r *rewriter) fresh(base string) string {
	name := base
	for i := 2; r.names[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	r.names[name] = true
	return name
}

func (r *rewriter) tmp(hint string) string { return r.fresh("heddle_" + hint) }

// ---- small AST builders ----

func ident(name string, pos token.Pos) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }

func (r *rewriter) rt(name string, pos token.Pos) ast.Expr {
	r.changed = true
	s := &ast.SelectorExpr{X: ident(r.rtName, pos), Sel: ident(name, pos)}
	r.static[s] = true
	return s
}

func (r *rewriter) rtCall(name string, pos token.Pos, args ...ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: r.rt(name, pos), Lparen: pos, Args: args, Rparen: pos}
}

func define(pos token.Pos, lhs []ast.Expr, rhs ...ast.Expr) *ast.AssignStmt {
	return &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: rhs}
}

func idents(pos token.Pos, names ...string) []ast.Expr {
	var out []ast.Expr
	for _, n := range names {
		out = append(out, ident(n, pos))
	}
	return out
}

func block(pos token.Pos, list ...ast.Stmt) *ast.BlockStmt {
	return &ast.BlockStmt{Lbrace: pos, List: list, Rbrace: pos}
}

func addr(x ast.Expr) ast.Expr {
	switch u := x.(type) {
	case *ast.StarExpr:
		return u.X // &*p == p
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.ParenExpr, *ast.CallExpr, *ast.CompositeLit:
		return &ast.UnaryExpr{OpPos: x.Pos(), Op: token.AND, X: x}
	}
	return &ast.UnaryExpr{OpPos: x.Pos(), Op: token.AND, X: &ast.ParenExpr{Lparen: x.Pos(), X: x, Rparen: x.End()}}
}

func (r *rewriter) typeOf(e ast.Expr) types.Type {
	if tv, ok := r.info.Types[e]; ok {
		return tv.Type
	}
	return nil
}

func (r *rewriter) isConst(e ast.Expr) bool {
	tv, ok := r.info.Types[e]
	return ok && (tv.Value != nil || tv.IsNil())
}

// chanOf returns the channel type of t: its underlying type, or the core
// type of a type parameter whose type set holds only channels of one
// element type. It returns nil if t is not a channel.
func chanOf(t types.Type) *types.Chan {
	if t == nil {
		return nil
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return coreChan(tp, 0)
	}
	c, _ := t.Underlying().(*types.Chan)
	return c
}

// coreChan returns the core type of a type parameter's constraint when it
// is a channel type, as the spec defines it: every type in the type set
// has the same underlying channel type, or channels of one element type
// whose directions agree (bidirectional ones taking the direction of the
// others).
func coreChan(tp *types.TypeParam, depth int) *types.Chan {
	iface, ok := tp.Underlying().(*types.Interface)
	if !ok || depth > 10 {
		return nil
	}
	var core *types.Chan
	merge := func(t types.Type) bool {
		var c *types.Chan
		if p, ok := types.Unalias(t).(*types.TypeParam); ok {
			c = coreChan(p, depth+1)
		} else {
			c, _ = t.Underlying().(*types.Chan)
		}
		if c == nil {
			return false
		}
		if core == nil {
			core = c
			return true
		}
		if !types.Identical(core.Elem(), c.Elem()) {
			return false
		}
		switch {
		case core.Dir() == c.Dir():
		case core.Dir() == types.SendRecv:
			core = c
		case c.Dir() != types.SendRecv:
			return false
		}
		return true
	}
	terms := 0
	var walk func(iface *types.Interface) bool
	walk = func(iface *types.Interface) bool {
		for i := 0; i < iface.NumEmbeddeds(); i++ {
			switch e := iface.EmbeddedType(i).(type) {
			case *types.Union:
				for j := 0; j < e.Len(); j++ {
					terms++
					if !merge(e.Term(j).Type()) {
						return false
					}
				}
			default:
				if _, isTP := types.Unalias(e).(*types.TypeParam); !isTP {
					if inner, ok := e.Underlying().(*types.Interface); ok {
						// A named constraint or method set.
						if !walk(inner) {
							return false
						}
						continue
					}
				}
				terms++
				if !merge(e) {
					return false
				}
			}
		}
		return true
	}
	if !walk(iface) {
		return nil
	}
	if terms == 0 {
		return nil
	}
	return core
}

func (r *rewriter) versionAtLeast(minor int) bool {
	v := strings.TrimPrefix(r.goVersion, "go")
	if v == "" {
		return true
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return true
	}
	m, err := strconv.Atoi(strings.TrimRightFunc(parts[1], func(c rune) bool { return c < '0' || c > '9' }))
	if err != nil {
		return true
	}
	return parts[0] != "1" || m >= minor
}

// ---- traversal ----

// replaceTypes replaces, in a type declaration (which the traversal does
// not enter), the names of the types in replacedTypes by heddle's.
func (r *rewriter) replaceTypes(decl *ast.GenDecl) {
	astutil.Apply(decl, func(c *astutil.Cursor) bool {
		var obj types.Object
		switch n := c.Node().(type) {
		case *ast.SelectorExpr:
			obj = r.info.Uses[n.Sel]
		case *ast.Ident:
			if o := r.info.Uses[n]; o != nil && o.Pkg() != r.pkg {
				obj = o
			}
		}
		if obj != nil {
			if name, ok := replacedType(obj); ok {
				c.Replace(r.rt(name, c.Node().Pos()))
				return false
			}
		}
		return true
	}, nil)
}

func (r *rewriter) pre(c *astutil.Cursor) bool {
	n := c.Node()
	if n == nil || r.skip[n] {
		return true
	}
	switch n := n.(type) {
	case *ast.GenDecl:
		if n.Tok == token.TYPE {
			r.replaceTypes(n)
		}
		if n.Tok == token.IMPORT || n.Tok == token.CONST || n.Tok == token.TYPE {
			return false
		}
	case *ast.FuncDecl:
		r.planTestFunc(n)
		r.planExampleFunc(n)
		r.planClockLink(n)
	case *ast.GoStmt:
		r.planGo(n)
	case *ast.DeferStmt:
		r.planDefer(n)
	case *ast.ExprStmt:
		r.planEarlyStmt(c, n)
	case *ast.ReturnStmt:
		r.planEarlyStmt(c, n)
	case *ast.SendStmt:
		r.planSend(n)
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			r.planRecv(n)
		}
	case *ast.BinaryExpr:
		r.planTBCompare(n)
	case *ast.TypeAssertExpr:
		r.planTBAssert(n, nil)
	case *ast.IndexExpr:
		r.planTBKey(r.typeOf(n.X), n.Index)
	case *ast.TypeSwitchStmt:
		r.planTBAssert(typeSwitchAssert(n), n.Body)
	case *ast.AssignStmt:
		r.planRecv2Assign(c, n)
		r.planEarlyStmt(c, n)
		r.planFileField(n)
	case *ast.CompositeLit:
		r.planFileField(n)
		r.planTBKeys(n)
	case *ast.ValueSpec:
		r.planRecv2Spec(n)
	case *ast.CallExpr:
		r.callee[ast.Unparen(n.Fun)] = true
		r.planCall(n)
		r.planTBArgs(n)
		r.planTBKeys(n)
		r.planFileKeep(n)
	case *ast.SelectorExpr:
		r.planSelector(n)
	case *ast.Ident:
		r.planIdent(n)
	case *ast.RangeStmt:
		r.planRange(n)
		r.planCountedRange(n)
	case *ast.ForStmt:
		var label types.Object
		if ls, ok := c.Parent().(*ast.LabeledStmt); ok && ls.Stmt == n {
			label = r.info.Defs[ls.Label]
		}
		r.planPollLoop(n, label)
		r.planCountedLoop(n)
	case *ast.SelectStmt:
		r.planSelect(n)
	case *ast.LabeledStmt:
		r.plans[n] = func(c *astutil.Cursor) {
			ls := c.Node().(*ast.LabeledStmt)
			if slot, ok := r.label[ls.Stmt]; ok {
				blk := ls.Stmt
				ls.Stmt = *slot
				*slot = ls
				c.Replace(blk)
			}
		}
	}
	return true
}

func (r *rewriter) post(c *astutil.Cursor) bool {
	n := c.Node()
	if p := r.plans[n]; p != nil {
		p(c)
	}
	if e, ok := n.(ast.Expr); ok && r.keep[e] {
		r.wrapKeep(c, r.keepWriter[e])
	}
	if e, ok := n.(ast.Expr); ok && r.racyArgs[e] {
		cur := c.Node().(ast.Expr)
		c.Replace(r.rtCall("RacyArg", e.Pos(), cur))
	}
	if e, ok := n.(ast.Expr); ok && r.tbWrap[e] != "" {
		cur := c.Node().(ast.Expr)
		w := r.rtCall(r.tbWrap[e], e.Pos(), cur)
		w.Rparen = e.End()
		c.Replace(w)
	}
	return true
}

// ---- go statements ----

func (r *rewriter) planGo(g *ast.GoStmt) {
	// A single multi-valued argument f(g()) is spread over temporaries.
	r.stmtCall[g.Call] = true
	tuple := 0
	if len(g.Call.Args) == 1 {
		if t, ok := r.typeOf(g.Call.Args[0]).(*types.Tuple); ok {
			tuple = t.Len()
		}
	}
	name := r.goNames[g]
	r.plans[g] = func(c *astutil.Cursor) {
		g := c.Node().(*ast.GoStmt)
		call := g.Call
		pos := g.Go
		slots, ok := r.operands[call]
		if !ok {
			if r.hoistFun(call.Fun) {
				slots = append(slots, &call.Fun)
			}
			for i := range call.Args {
				slots = append(slots, &call.Args[i])
			}
		}
		var stmts []ast.Stmt
		for _, s := range slots {
			e := *s
			if r.isConst(e) {
				continue
			}
			if fl, ok := e.(*ast.FuncLit); ok && s == &call.Fun {
				_ = fl
				continue
			}
			if tuple > 0 && len(call.Args) == 1 && s == &call.Args[0] {
				var names []string
				for i := 0; i < tuple; i++ {
					names = append(names, r.tmp("a"))
				}
				stmts = append(stmts, define(pos, idents(pos, names...), e))
				call.Args = idents(pos, names...)
				continue
			}
			name := r.tmp("a")
			rhs := e
			if conv := r.untypedConv(e); conv != nil {
				rhs = conv
			}
			stmts = append(stmts, define(pos, idents(pos, name), rhs))
			*s = ident(name, pos)
		}
		stmts = append(stmts, &ast.ExprStmt{X: r.goStart(pos, call, name)})
		if len(stmts) == 1 {
			c.Replace(stmts[0])
		} else {
			c.Replace(block(pos, stmts...))
		}
	}
}

// ---- defer statements ----

// planDefer moves a deferred call whose step is taken when its function
// value is evaluated (rt.AtomicW(&n).Store(false), rt.StdW(rt.RegMime,
// mime.AddExtensionType)(...)) into a function literal, so that the step
// is taken when the deferred call runs, as the call itself: the operands
// are evaluated at the defer statement, as Go does, into temporaries.
//
//	defer n.Store(false)  ->  { heddle_a := &n; defer func() { rt.AtomicW(heddle_a).Store(false) }() }
//
// With the step at the defer statement, a deferred Store after a
// rendezvous was ordered before it for DPOR (conform
// TestDeferAtomicStoreAfterRendezvous: one outcome of two).
func (r *rewriter) planDefer(d *ast.DeferStmt) {
	if len(d.Call.Args) == 1 {
		if _, ok := r.typeOf(d.Call.Args[0]).(*types.Tuple); ok {
			return // defer f.M(g()): left as it is
		}
	}
	r.stmtCall[d.Call] = true
	r.plans[d] = func(c *astutil.Cursor) {
		d := c.Node().(*ast.DeferStmt)
		call := d.Call
		slots, ok := r.operands[call]
		if !ok || !r.early[call] {
			return
		}
		pos := d.Defer
		stmts := r.hoistSlots(pos, slots)
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}}, Body: block(pos, &ast.ExprStmt{X: call})}
		stmts = append(stmts, &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: pos}})
		c.Replace(block(pos, stmts...))
	}
}

// hoistSlots evaluates the non-constant operands in slots into
// temporaries, in order, and puts the temporaries in their place.
func (r *rewriter) hoistSlots(pos token.Pos, slots []*ast.Expr) []ast.Stmt {
	var stmts []ast.Stmt
	for _, s := range slots {
		e := *s
		if r.isConst(e) {
			continue
		}
		name := r.tmp("a")
		rhs := e
		if conv := r.untypedConv(e); conv != nil {
			rhs = conv
		}
		stmts = append(stmts, define(pos, idents(pos, name), rhs))
		*s = ident(name, pos)
	}
	return stmts
}

// planEarlyStmt evaluates the operands of a call whose step is taken
// with its function value or first operand into temporaries first, when
// one of them may take a step of its own (a receive, a call). The call is
// a statement, the only right-hand side of an assignment or the only
// result of a return:
//
//	n.Store(<-ch)  ->  { heddle_a := &n; heddle_a2 := rt.Recv(ch); rt.AtomicW(heddle_a).Store(heddle_a2) }
//
// Without it, the Store's step came before the receive, and DPOR ordered
// it before the rendezvous the real Store follows (conform
// TestAtomicStoreOfReceive: one outcome of two). A short variable
// declaration gets its temporaries before it, in the same list (a goto
// cannot jump over it, so none can jump over them); the others, in a
// block around them. Such a call deeper in an expression
// (f(n.Swap(<-ch))) still takes its step first.
func (r *rewriter) planEarlyStmt(c *astutil.Cursor, st ast.Stmt) {
	if c.Index() < 0 || r.plans[st] != nil {
		return // not in a statement list, or rewritten otherwise
	}
	// slot returns the place of the statement's call.
	slot := func(st ast.Stmt) *ast.Expr {
		switch st := st.(type) {
		case *ast.ExprStmt:
			return &st.X
		case *ast.AssignStmt:
			if len(st.Rhs) == 1 && (st.Tok == token.ASSIGN || st.Tok == token.DEFINE) {
				return &st.Rhs[0]
			}
		case *ast.ReturnStmt:
			if len(st.Results) == 1 {
				return &st.Results[0]
			}
		}
		return nil
	}
	e := slot(st)
	if e == nil {
		return
	}
	call, ok := ast.Unparen(*e).(*ast.CallExpr)
	if !ok {
		return
	}
	if len(call.Args) == 1 {
		if _, ok := r.typeOf(call.Args[0]).(*types.Tuple); ok {
			return // f.M(g()): left as it is
		}
	}
	if _, direct := (*e).(*ast.CallExpr); direct {
		r.stmtCall[call] = true
	}
	r.plans[st] = func(c *astutil.Cursor) {
		st := c.Node().(ast.Stmt)
		call, ok := (*slot(st)).(*ast.CallExpr)
		if !ok || !r.early[call] {
			return
		}
		slots := r.operands[call]
		stepping := false
		for _, s := range slots {
			if r.mayStep(*s) {
				stepping = true
			}
		}
		if !stepping {
			return
		}
		pos := st.Pos()
		stmts := r.hoistSlots(pos, slots)
		if a, ok := st.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			for _, s := range stmts {
				c.InsertBefore(s)
			}
			return
		}
		c.Replace(block(pos, append(stmts, st)...))
	}
}

// mayStep reports whether evaluating e may take a step: it holds a call
// or a receive. Conversions and the builtins the rewriter leaves (len of
// a slice, append) take none of their own; a call the rewriter built has
// no type information and counts.
func (r *rewriter) mayStep(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv, ok := r.info.Types[n.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
				return true // its operands may
			}
			found = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		case *ast.FuncLit:
			return false // its body runs later
		}
		return !found
	})
	return found
}

// stepLate makes a rewritten call whose step is taken with its function
// value or first operand (out, built from the call orig) take it after
// its operands are evaluated, wherever the call sits, when an operand may
// take a step of its own. Go evaluates the operands first, then calls;
// rt.AtomicW(&n).CompareAndSwap(0, rt.Recv(ch)) calls AtomicW, which takes
// the step, before the receive. The call becomes a function literal
// called with the operands, whose body makes the call:
//
//	if n.CompareAndSwap(0, <-ch) {
//	->
//	if func(heddle_a *atomic.Int32, heddle_a2 int32) bool {
//		return rt.AtomicW(heddle_a).CompareAndSwap(0, heddle_a2)
//	}(&n, rt.Recv(ch)) {
//
// Being an expression, it keeps its place: in a condition evaluated at
// every iteration, in the right operand of && or ||, in the operands of
// another call, in the order Go evaluates them. A call that a go, defer
// or statement plan takes care of (stmtCall) is left to it. types holds
// the type of the value each slot is passed as; the call is left as it is
// when one cannot be spelled.
func (r *rewriter) stepLate(orig, out *ast.CallExpr, slots []*ast.Expr, ptypes []types.Type, results *types.Tuple) ast.Expr {
	if r.stmtCall[orig] || len(slots) != len(ptypes) || results == nil {
		return out
	}
	stepping := false
	for _, s := range slots {
		if r.mayStep(*s) {
			stepping = true
		}
	}
	if !stepping {
		return out
	}
	pos := out.Pos()
	var params []*types.Var
	var names []string
	var args []ast.Expr
	var moved []*ast.Expr
	for i, s := range slots {
		if r.isConst(*s) {
			continue
		}
		if ptypes[i] == nil {
			return out
		}
		name := r.tmp("a")
		params = append(params, types.NewParam(token.NoPos, nil, name, ptypes[i]))
		names = append(names, name)
		args = append(args, *s)
		moved = append(moved, s)
	}
	sig := types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), results, false)
	ft, err := r.funcTypeAt(sig, names, pos)
	if err != nil {
		return out
	}
	for i, s := range moved {
		*s = ident(names[i], pos)
	}
	ft.Func = pos
	var body ast.Stmt = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{out}}
	if results.Len() == 0 {
		body = &ast.ExprStmt{X: out}
	}
	lit := &ast.FuncLit{Type: ft, Body: block(pos, body)}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: args, Rparen: out.End()}
}

// argTypes returns the types of the values the n operands of a call of
// sig are passed as (the elements of a variadic parameter, or its slice
// with ellipsis), or nil if sig is not a signature.
func argTypes(sig *types.Signature, n int, ellipsis bool) []types.Type {
	if sig == nil {
		return nil
	}
	ps := sig.Params()
	var out []types.Type
	for i := 0; i < n; i++ {
		switch {
		case sig.Variadic() && i >= ps.Len()-1:
			t := ps.At(ps.Len() - 1).Type()
			if !ellipsis {
				s, ok := t.Underlying().(*types.Slice)
				if !ok {
					return nil
				}
				t = s.Elem()
			}
			out = append(out, t)
		case i < ps.Len():
			out = append(out, ps.At(i).Type())
		default:
			return nil
		}
	}
	return out
}

// untypedConv returns T(e) for an untyped, non-constant operand (a shift or
// comparison) whose type is fixed by its context, so that a temporary keeps
// that type. It returns nil when no conversion is needed or possible.
func (r *rewriter) untypedConv(e ast.Expr) ast.Expr {
	tv, ok := r.info.Types[e]
	if !ok || tv.Value != nil {
		return nil
	}
	switch u := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		switch u.Op {
		case token.SHL, token.SHR:
			if b, ok := tv.Type.(*types.Basic); ok && b.Kind() == types.Int {
				return nil
			}
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			if b, ok := tv.Type.(*types.Basic); ok && b.Kind() == types.Bool {
				return nil
			}
		default:
			return nil
		}
	case *ast.UnaryExpr:
		if u.Op != token.NOT {
			return nil
		}
		if b, ok := tv.Type.(*types.Basic); ok && b.Kind() == types.Bool {
			return nil
		}
	default:
		return nil
	}
	te, err := r.typeExprAt(tv.Type, e.Pos())
	if err != nil {
		return nil
	}
	return &ast.CallExpr{Fun: &ast.ParenExpr{X: te}, Lparen: e.Pos(), Args: []ast.Expr{e}, Rparen: e.End()}
}

// hoistFun reports whether the function operand of a go statement must be
// evaluated before the goroutine starts: function values and method values
// must, named functions, builtins and function literals need not.
func (r *rewriter) hoistFun(fun ast.Expr) bool {
	if r.static[fun] {
		return false
	}
	fun = ast.Unparen(fun)
	switch f := fun.(type) {
	case *ast.FuncLit:
		return false
	case *ast.Ident:
		switch r.info.Uses[f].(type) {
		case *types.Func, *types.Builtin, *types.TypeName:
			return false
		}
		return true
	case *ast.SelectorExpr:
		if r.static[f] {
			return false
		}
		if sel, ok := r.info.Selections[f]; ok {
			return sel.Kind() != types.MethodExpr
		}
		switch r.info.Uses[f.Sel].(type) {
		case *types.Func, *types.Builtin, *types.TypeName:
			return false
		}
		return true
	case *ast.IndexExpr:
		if _, ok := r.info.Instances[instIdent(f.X)]; ok {
			return false
		}
		return true
	case *ast.IndexListExpr:
		if _, ok := r.info.Instances[instIdent(f.X)]; ok {
			return false
		}
		return true
	}
	return true
}

func instIdent(x ast.Expr) *ast.Ident {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// ---- channels ----

// sendValue returns the value operand of a rewritten send, converted to the
// element type when inference from the channel alone would fail (the value's
// type differs from the element type, e.g. a concrete type sent on a chan of
// interfaces). ok is false if the conversion cannot be spelled.
func (r *rewriter) sendValuePlan(ch, v ast.Expr) (conv ast.Expr, ok bool) {
	ct := chanOf(r.typeOf(ch))
	vt := r.typeOf(v)
	if ct == nil || vt == nil {
		return nil, false
	}
	if b, isB := vt.(*types.Basic); isB && b.Info()&types.IsUntyped != 0 {
		return nil, true
	}
	if types.Identical(vt, ct.Elem()) {
		return nil, true
	}
	// A typed value of another type (a typed constant, a concrete type
	// sent on a channel of interfaces) is converted, as the assignment
	// of the send converts it.
	te, err := r.typeExprAt(ct.Elem(), v.Pos())
	if err != nil {
		return nil, false
	}
	return te, true
}

func convert(te ast.Expr, v ast.Expr) ast.Expr {
	if te == nil {
		return v
	}
	return &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: v.Pos(), X: te, Rparen: v.Pos()}, Lparen: v.Pos(), Args: []ast.Expr{v}, Rparen: v.End()}
}

func (r *rewriter) planSend(s *ast.SendStmt) {
	if chanOf(r.typeOf(s.Chan)) == nil {
		return
	}
	conv, ok := r.sendValuePlan(s.Chan, s.Value)
	if !ok {
		return
	}
	r.plans[s] = func(c *astutil.Cursor) {
		s := c.Node().(*ast.SendStmt)
		call := r.rtCall("Send", s.Arrow, s.Chan, convert(conv, s.Value))
		call.Lparen, call.Rparen = s.Arrow, s.End()
		r.operands[call] = []*ast.Expr{&call.Args[0], &call.Args[1]}
		c.Replace(&ast.ExprStmt{X: call})
	}
}

func (r *rewriter) planRecv(u *ast.UnaryExpr) {
	if chanOf(r.typeOf(u.X)) == nil {
		return
	}
	r.plans[u] = func(c *astutil.Cursor) {
		u := c.Node().(*ast.UnaryExpr)
		call := r.rtCall("Recv", u.OpPos, u.X)
		call.Rparen = u.End()
		c.Replace(call)
	}
}

// recv2Operand returns the receive expression of `v, ok := <-ch`-like
// right-hand sides.
func (r *rewriter) recv2Operand(rhs []ast.Expr, nlhs int) *ast.UnaryExpr {
	if nlhs != 2 || len(rhs) != 1 {
		return nil
	}
	u, ok := ast.Unparen(rhs[0]).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW || chanOf(r.typeOf(u.X)) == nil {
		return nil
	}
	return u
}

func isPredeclaredBool(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && (b.Kind() == types.Bool || b.Kind() == types.UntypedBool)
}

func (r *rewriter) planRecv2Assign(c *astutil.Cursor, a *ast.AssignStmt) {
	u := r.recv2Operand(a.Rhs, len(a.Lhs))
	if u == nil {
		return
	}
	r.skip[u] = true
	// ok of a named boolean type is not assignable from Recv2's bool.
	namedOK := a.Tok == token.ASSIGN && !isBlank(a.Lhs[1]) && !isPredeclaredBool(r.typeOf(a.Lhs[1]))
	inList := c.Index() >= 0
	r.plans[a] = func(c *astutil.Cursor) {
		a := c.Node().(*ast.AssignStmt)
		u := ast.Unparen(a.Rhs[0]).(*ast.UnaryExpr)
		call := r.rtCall("Recv2", u.OpPos, u.X)
		call.Rparen = u.End()
		if !namedOK {
			a.Rhs = []ast.Expr{call}
			return
		}
		pos := a.Pos()
		hv, hok := r.tmp("v"), r.tmp("ok")
		body := block(pos,
			define(pos, idents(pos, hv, hok), call),
			&ast.AssignStmt{Lhs: a.Lhs, TokPos: a.TokPos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(hv, pos), trueCmp(ident(hok, pos))}})
		if inList {
			c.Replace(body)
			return
		}
		// In an if/switch/for header there is room for one simple
		// statement: a call of a function literal holding the block.
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}}, Body: body}
		c.Replace(&ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: pos}})
	}
}

func trueCmp(x ast.Expr) ast.Expr {
	return &ast.BinaryExpr{X: x, OpPos: x.Pos(), Op: token.EQL, Y: ident("true", x.Pos())}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func (r *rewriter) planRecv2Spec(vs *ast.ValueSpec) {
	u := r.recv2Operand(vs.Values, len(vs.Names))
	if u == nil {
		return
	}
	if vs.Type != nil {
		if t := r.typeOf(vs.Type); t == nil || !isPredeclaredBool(t) && !types.IsInterface(t) {
			return // var v, ok T = <-ch with a T that bool does not convert to; leave it
		}
	}
	r.skip[u] = true
	r.plans[vs] = func(c *astutil.Cursor) {
		vs := c.Node().(*ast.ValueSpec)
		u := ast.Unparen(vs.Values[0]).(*ast.UnaryExpr)
		call := r.rtCall("Recv2", u.OpPos, u.X)
		call.Rparen = u.End()
		vs.Values = []ast.Expr{call}
	}
}

// ---- select ----

func (r *rewriter) planSelect(s *ast.SelectStmt) {
	type caseInfo struct {
		send    bool
		conv    ast.Expr
		recv    bool // has a receive (not default)
		namedOK bool
	}
	infos := make([]caseInfo, len(s.Body.List))
	for i, cl := range s.Body.List {
		cc := cl.(*ast.CommClause)
		switch comm := cc.Comm.(type) {
		case nil:
		case *ast.SendStmt:
			conv, ok := r.sendValuePlan(comm.Chan, comm.Value)
			if !ok {
				return // leave the whole select native
			}
			infos[i] = caseInfo{send: true, conv: conv}
			r.skip[comm] = true
		case *ast.ExprStmt:
			u := ast.Unparen(comm.X).(*ast.UnaryExpr)
			if chanOf(r.typeOf(u.X)) == nil {
				return
			}
			infos[i] = caseInfo{recv: true}
			r.skip[u] = true
		case *ast.AssignStmt:
			u := ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr)
			if chanOf(r.typeOf(u.X)) == nil {
				return
			}
			ci := caseInfo{recv: true}
			if comm.Tok == token.ASSIGN && len(comm.Lhs) == 2 && !isBlank(comm.Lhs[1]) && !isPredeclaredBool(r.typeOf(comm.Lhs[1])) {
				ci.namedOK = true
			}
			infos[i] = ci
			r.skip[u] = true
			r.skip[comm] = true
		}
	}
	r.plans[s] = func(c *astutil.Cursor) {
		s := c.Node().(*ast.SelectStmt)
		pos := s.Select
		var stmts []ast.Stmt
		var caseArgs []ast.Expr
		hasDefault := false
		sw := &ast.SwitchStmt{Switch: pos, Body: &ast.BlockStmt{Lbrace: s.Body.Lbrace, Rbrace: s.Body.Rbrace}}
		idx := 0
		var clauses []*ast.CaseClause
		lastCase := -1
		for i, cl := range s.Body.List {
			cc := cl.(*ast.CommClause)
			out := &ast.CaseClause{Case: cc.Case, Colon: cc.Colon, Body: cc.Body}
			switch comm := cc.Comm.(type) {
			case nil:
				hasDefault = true
			case *ast.SendStmt:
				name := r.tmp("c")
				stmts = append(stmts, define(cc.Case, idents(cc.Case, name), r.rtCall("SendCase", comm.Arrow, comm.Chan, convert(infos[i].conv, comm.Value))))
				caseArgs = append(caseArgs, ident(name, pos))
				out.List = []ast.Expr{&ast.BasicLit{ValuePos: cc.Case, Kind: token.INT, Value: strconv.Itoa(idx)}}
				idx++
				lastCase = len(clauses)
			case *ast.ExprStmt, *ast.AssignStmt:
				var u *ast.UnaryExpr
				if es, ok := comm.(*ast.ExprStmt); ok {
					u = ast.Unparen(es.X).(*ast.UnaryExpr)
				} else {
					u = ast.Unparen(comm.(*ast.AssignStmt).Rhs[0]).(*ast.UnaryExpr)
				}
				name := r.tmp("c")
				stmts = append(stmts, define(cc.Case, idents(cc.Case, name), r.rtCall("RecvCase", u.OpPos, u.X)))
				caseArgs = append(caseArgs, ident(name, pos))
				out.List = []ast.Expr{&ast.BasicLit{ValuePos: cc.Case, Kind: token.INT, Value: strconv.Itoa(idx)}}
				idx++
				lastCase = len(clauses)
				if as, ok := comm.(*ast.AssignStmt); ok {
					p := as.Pos()
					rhs := []ast.Expr{&ast.SelectorExpr{X: ident(name, p), Sel: ident("V", p)}}
					if len(as.Lhs) == 2 {
						var okx ast.Expr = &ast.SelectorExpr{X: ident(name, p), Sel: ident("OK", p)}
						if infos[i].namedOK {
							okx = trueCmp(okx)
						}
						rhs = append(rhs, okx)
					}
					as2 := &ast.AssignStmt{Lhs: as.Lhs, TokPos: as.TokPos, Tok: as.Tok, Rhs: rhs}
					out.Body = append([]ast.Stmt{as2}, cc.Body...)
				}
			}
			clauses = append(clauses, out)
		}
		if !hasDefault && lastCase >= 0 {
			// Select never returns -1 here; making the last case the
			// default keeps the switch a terminating statement when
			// the select was one.
			clauses[lastCase].List = nil
		}
		for _, cl := range clauses {
			sw.Body.List = append(sw.Body.List, cl)
		}
		args := append([]ast.Expr{ident(strconv.FormatBool(hasDefault), pos)}, caseArgs...)
		sel := r.rtCall("Select", pos, args...)
		if len(s.Body.List) == 0 {
			// select {} blocks forever; `for {}` keeps it terminating.
			loop := &ast.ForStmt{For: pos, Body: block(pos, &ast.ExprStmt{X: sel})}
			c.Replace(loop)
			return
		}
		sw.Tag = sel
		stmts = append(stmts, sw)
		blk := block(pos, stmts...)
		blk.Rbrace = s.Body.Rbrace
		r.label[blk] = &blk.List[len(blk.List)-1]
		c.Replace(blk)
	}
}

// ---- range over channels and maps ----

func (r *rewriter) planRange(rs *ast.RangeStmt) {
	t := r.typeOf(rs.X)
	if t == nil {
		return
	}
	if chanOf(t) != nil {
		r.planRangeChan(rs)
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Map:
		r.planRangeMap(rs, u)
	}
}

func (r *rewriter) planRangeChan(rs *ast.RangeStmt) {
	r.plans[rs] = func(c *astutil.Cursor) {
		rs := c.Node().(*ast.RangeStmt)
		pos := rs.For
		hc, hok := r.tmp("ch"), r.tmp("ok")
		recv := func() ast.Expr { return r.rtCall("Recv2", pos, ident(hc, pos)) }
		body := rs.Body
		var loop *ast.ForStmt
		key := rs.Key
		if key != nil && isBlank(key) {
			key = nil
		}
		switch {
		case key == nil:
			// for range ch / for _ = range ch
			loop = &ast.ForStmt{For: pos,
				Init: define(pos, idents(pos, "_", hok), recv()),
				Cond: ident(hok, pos),
				Post: &ast.AssignStmt{Lhs: idents(pos, "_", hok), TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{recv()}},
				Body: body}
		case rs.Tok == token.DEFINE:
			// The three-clause loop has exactly the loop-variable
			// semantics of the range loop for the file's language version:
			// one variable per loop before go1.22, one per iteration after.
			name := key.(*ast.Ident).Name
			loop = &ast.ForStmt{For: pos,
				Init: define(pos, []ast.Expr{key, ident(hok, pos)}, recv()),
				Cond: ident(hok, pos),
				Post: &ast.AssignStmt{Lhs: idents(pos, name, hok), TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{recv()}},
				Body: &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace,
					List: append([]ast.Stmt{&ast.AssignStmt{Lhs: idents(body.Lbrace, "_"), TokPos: body.Lbrace, Tok: token.ASSIGN, Rhs: idents(body.Lbrace, name)}}, body.List...)}}
		default:
			// for v = range ch assigns to v each iteration.
			hv := r.tmp("v")
			loop = &ast.ForStmt{For: pos, Body: &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace, List: append([]ast.Stmt{
				define(pos, idents(pos, hv, hok), recv()),
				&ast.IfStmt{If: pos, Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(hok, pos)}, Body: block(pos, &ast.BranchStmt{TokPos: pos, Tok: token.BREAK})},
				&ast.AssignStmt{Lhs: []ast.Expr{key}, TokPos: pos, Tok: token.ASSIGN, Rhs: idents(pos, hv)},
			}, body.List...)}}
		}
		blk := block(pos, define(pos, idents(pos, hc), rs.X), loop)
		blk.Rbrace = rs.Body.Rbrace
		r.label[blk] = &blk.List[1]
		c.Replace(blk)
	}
}

func (r *rewriter) planRangeMap(rs *ast.RangeStmt, mt *types.Map) {
	perLoop := !r.versionAtLeast(22)
	r.plans[rs] = func(c *astutil.Cursor) {
		rs := c.Node().(*ast.RangeStmt)
		pos := rs.For
		hm, hks, hok := r.tmp("m"), r.tmp("keys"), r.tmp("ok")
		key, val := rs.Key, rs.Value
		if key != nil && isBlank(key) {
			key = nil
		}
		if val != nil && isBlank(val) {
			val = nil
		}
		body := rs.Body
		mk := func() ast.Expr { return r.rtCall("MapKeys", pos, ident(hm, pos)) }
		index := func(k string) ast.Expr {
			return &ast.IndexExpr{X: ident(hm, pos), Lbrack: pos, Index: ident(k, pos), Rbrack: pos}
		}
		skipDeleted := func(lhs []ast.Expr, tok token.Token, k string) ast.Stmt {
			return &ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: append(lhs, ident(hok, pos)), TokPos: pos, Tok: tok, Rhs: []ast.Expr{index(k)}},
				Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(hok, pos)},
				Body: block(pos, &ast.BranchStmt{TokPos: pos, Tok: token.CONTINUE})}
		}
		inner := func(stmts ...ast.Stmt) *ast.BlockStmt {
			// The original body stays a nested block: it may redeclare
			// the loop variables.
			return &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace, List: append(stmts, body)}
		}
		var stmts []ast.Stmt
		stmts = append(stmts, define(pos, idents(pos, hm), rs.X))
		var loopSlot *ast.Stmt
		switch {
		case rs.Tok != token.DEFINE && (key != nil || val != nil):
			// for k, v = range m
			hk, hv := r.tmp("k"), r.tmp("v")
			var lhs, rhs []ast.Expr
			if key != nil {
				lhs, rhs = append(lhs, key), append(rhs, ident(hk, pos))
			}
			if val != nil {
				lhs, rhs = append(lhs, val), append(rhs, ident(hv, pos))
			}
			vname := "_"
			if val != nil {
				vname = hv
			}
			loop := &ast.RangeStmt{For: pos, Key: ident("_", pos), Value: ident(hk, pos), Tok: token.DEFINE, X: mk(),
				Body: inner(
					define(pos, idents(pos, vname, hok), index(hk)),
					&ast.IfStmt{If: pos, Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(hok, pos)},
						Body: block(pos, &ast.BranchStmt{TokPos: pos, Tok: token.CONTINUE})},
					&ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: rhs})}
			stmts = append(stmts, loop)
			loopSlot = &stmts[len(stmts)-1]
		case val == nil:
			// for k := range m, for range m
			k := r.tmp("k")
			if key != nil {
				k = key.(*ast.Ident).Name
			}
			loop := &ast.RangeStmt{For: pos, Key: ident("_", pos), Value: ident(k, pos), Tok: token.DEFINE, X: mk(),
				Body: inner(skipDeleted(idents(pos, "_"), token.DEFINE, k))}
			stmts = append(stmts, loop)
			loopSlot = &stmts[len(stmts)-1]
		case !perLoop:
			// for k, v := range m with per-iteration variables (go1.22+).
			k := r.tmp("k")
			if key != nil {
				k = key.(*ast.Ident).Name
			}
			v := val.(*ast.Ident).Name
			loop := &ast.RangeStmt{For: pos, Key: ident("_", pos), Value: ident(k, pos), Tok: token.DEFINE, X: mk(),
				Body: inner(
					define(pos, idents(pos, v, hok), index(k)),
					&ast.IfStmt{If: pos, Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(hok, pos)},
						Body: block(pos, &ast.BranchStmt{TokPos: pos, Tok: token.CONTINUE})},
					&ast.AssignStmt{Lhs: idents(pos, "_"), TokPos: pos, Tok: token.ASSIGN, Rhs: idents(pos, v)})}
			stmts = append(stmts, loop)
			loopSlot = &stmts[len(stmts)-1]
		default:
			// for k, v := range m before go1.22: v is one variable for
			// the whole loop, declared from the first key (the loop body
			// only runs if there is one). The range over the key slice
			// gives k the same per-loop semantics.
			k := r.tmp("k")
			if key != nil {
				k = key.(*ast.Ident).Name
			}
			v := val.(*ast.Ident).Name
			first := &ast.IndexExpr{X: ident(hks, pos), Lbrack: pos, Index: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}, Rbrack: pos}
			boolT, err := r.typeExprAt(types.Typ[types.Bool], pos)
			if err != nil {
				boolT = ident("bool", pos)
			}
			loop := &ast.RangeStmt{For: pos, Key: ident("_", pos), Value: ident(k, pos), Tok: token.DEFINE, X: ident(hks, pos),
				Body: inner(
					&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{ident(hok, pos)}, Type: boolT}}}},
					&ast.IfStmt{If: pos,
						Init: &ast.AssignStmt{Lhs: idents(pos, v, hok), TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{index(k)}},
						Cond: &ast.UnaryExpr{OpPos: pos, Op: token.NOT, X: ident(hok, pos)},
						Body: block(pos, &ast.BranchStmt{TokPos: pos, Tok: token.CONTINUE})})}
			ifBody := block(pos,
				define(pos, idents(pos, v), &ast.IndexExpr{X: ident(hm, pos), Lbrack: pos, Index: first, Rbrack: pos}),
				&ast.AssignStmt{Lhs: idents(pos, "_"), TokPos: pos, Tok: token.ASSIGN, Rhs: idents(pos, v)},
				loop)
			ifs := &ast.IfStmt{If: pos,
				Init: define(pos, idents(pos, hks), mk()),
				Cond: &ast.BinaryExpr{X: &ast.CallExpr{Fun: ident("len", pos), Args: idents(pos, hks)}, Op: token.GTR, Y: &ast.BasicLit{Kind: token.INT, Value: "0"}},
				Body: ifBody}
			stmts = append(stmts, ifs)
			loopSlot = &ifBody.List[2]
		}
		blk := block(pos, stmts...)
		blk.Rbrace = rs.Body.Rbrace
		if loopSlot == &stmts[len(stmts)-1] {
			loopSlot = &blk.List[len(blk.List)-1]
		}
		r.label[blk] = loopSlot
		c.Replace(blk)
	}
	_ = mt
}

// ---- test functions ----

func (r *rewriter) planTestFunc(fd *ast.FuncDecl) {
	if !strings.HasSuffix(r.filename, "_test.go") || fd.Recv != nil || fd.Body == nil || fd.Type.TypeParams != nil {
		return
	}
	name := fd.Name.Name
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return
	}
	if rest := name[4:]; rest != "" {
		if c := rest[0]; c >= 'a' && c <= 'z' {
			return
		}
	}
	if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
		return
	}
	params := fd.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return
	}
	if !isTestingT(r.typeOf(params[0].Type)) {
		return
	}
	r.plans[fd] = func(c *astutil.Cursor) {
		fd := c.Node().(*ast.FuncDecl)
		p := fd.Type.Params.List[0]
		pos := fd.Body.Lbrace
		outer, innerNames := r.splitTParam(p, pos)
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Names: innerNames, Type: p.Type}}}},
			Body: fd.Body,
		}
		call := r.rtCall("Explore", pos, ident(outer, pos), lit)
		call.Rparen = fd.Body.Rbrace
		fd.Body = &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: call}}, Rbrace: fd.Body.Rbrace}
	}
}

func namedIn(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

func isTestingT(t types.Type) bool {
	if t == nil {
		return false
	}
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && namedIn(p.Elem(), "testing", "T")
}

func isTestingTB(t types.Type) bool { return namedIn(t, "testing", "TB") }

// ---- output ----

func (r *rewriter) print(comments bool) ([]byte, error) {
	f := r.file
	saved := f.Comments
	if !comments {
		var keep []*ast.CommentGroup
		for _, cg := range f.Comments {
			var list []*ast.Comment
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//go:") || strings.HasPrefix(c.Text, "//line") || strings.HasPrefix(c.Text, "//export") || strings.HasPrefix(c.Text, "// +build") {
					list = append(list, c)
				}
			}
			if len(list) > 0 {
				keep = append(keep, &ast.CommentGroup{List: list})
			}
		}
		f.Comments = keep
		defer func() { f.Comments = saved }()
	}
	var buf bytes.Buffer
	// RawFormat: no tabwriter, so the output does not depend on the
	// length of the paths in the //line directives.
	cfg := printer.Config{Mode: printer.RawFormat | printer.SourcePos, Tabwidth: 8}
	if err := cfg.Fprint(&buf, r.fset, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// splitTParam names the *testing.T parameter p of a function whose body
// the rewrite moves into an inner function literal: it returns the name
// the outer function's parameter has (the user's, or a fresh one given to
// p if it had none or was _) and the names of the inner literal's
// parameter (the user's name, _ , or none, as p had).
func (r *rewriter) splitTParam(p *ast.Field, pos token.Pos) (outer string, inner []*ast.Ident) {
	if len(p.Names) == 1 && p.Names[0].Name != "_" {
		outer = p.Names[0].Name
		return outer, []*ast.Ident{ident(outer, p.Names[0].Pos())}
	}
	outer = r.tmp("t")
	if len(p.Names) == 1 {
		inner = []*ast.Ident{ident("_", pos)}
	}
	p.Names = []*ast.Ident{ident(outer, p.Pos())}
	return outer, inner
}
