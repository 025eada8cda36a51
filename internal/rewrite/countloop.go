package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// Counted loops.
//
// heddle keeps a goroutine that polled a few times in a row without
// progress from running while another can, and such a drop bounds an
// exhaustive search's claim ("exhausted up to the spin bound"): a loop
// that polls a bounded number of times ends after its last poll, and the
// schedules in which it ends before the others moved are the ones left
// out (docs/design.md, "The spin bound"). A loop whose trip count is
// bounded by a small constant ends without any spin bound: the rewriter
// marks it, with the number of polls it can run, and the engine and the
// strategies do not take a goroutine at one of its polls for a spinner
// before it polled that many times in a row (internal/engine/spincount.go
// has the argument).
//
// A loop is counted when its trip count is at most countTrips:
//
//   - for i := c0; COND; i++ (or i--, i += 1, i -= 1), i of an integer
//     type, c0 a constant, COND a condition one of whose conjuncts (&&, at
//     the top) compares i with a constant (i < c1, i <= c1, c1 > i, ...;
//     the direction the post statement moves i towards), and i assigned
//     nowhere else, nor its address taken, nor a method called on it (in
//     the condition and the body, function literals included);
//   - for ... range n, n an integer constant, or an array (or a pointer
//     to one).
//
// The body must have no goto (a jump back would run its polls more often
// than once an iteration). Its polls are the atomic loads, Gosched calls
// and selects directly in the loop: in its condition and its body, not in
// a nested loop (which may run them any number of times an iteration) nor
// in a function literal. They become rt.CountR, rt.CountGosched and
// rt.CountSelect, with the loop's bound: trips times the polls of the
// body, plus trips+1 times those of the condition, at most countPolls.
// Polls in functions the loop calls stay unmarked: a drop there bounds the
// claim, as before.
//
//	for i := 0; i < 2 && !seen; i++ { runtime.Gosched(); seen = flag.Load() }
//	->
//	for i := 0; i < 2 && !seen; i++ { rt.CountGosched(4); seen = rt.CountR(4, &flag).Load() }
//
// Whether a mark is right decides only whether the search says
// "exhausted" or "exhausted up to the spin bound", never whether a
// schedule is left out silently: every drop still counts.

const (
	// countTrips is the largest trip count of a counted loop.
	countTrips = 16
	// countPolls is the largest number of polls a counted loop may run
	// (engine.MaxCountBound).
	countPolls = 64
)

// planCountedLoop marks fs if its trip count is bounded (above).
func (r *rewriter) planCountedLoop(fs *ast.ForStmt) {
	n, ok := r.forTrips(fs)
	if !ok || n <= 0 || n > countTrips || fs.Body == nil || hasGoto(fs.Body) {
		return
	}
	r.planCounted(fs, n)
}

// planCountedRange marks rs if it ranges over an integer constant or an
// array (above).
func (r *rewriter) planCountedRange(rs *ast.RangeStmt) {
	n, ok := r.rangeTrips(rs)
	if !ok || n <= 0 || n > countTrips || rs.Body == nil || hasGoto(rs.Body) {
		return
	}
	r.planCounted(rs, n)
}

// planCounted adds to the plan of loop (a *ast.ForStmt or *ast.RangeStmt)
// the marking of its polls, for a loop of at most n iterations.
func (r *rewriter) planCounted(loop ast.Stmt, n int64) {
	prev := r.plans[loop]
	r.plans[loop] = func(c *astutil.Cursor) {
		if prev != nil {
			prev(c)
		}
		var cond ast.Expr
		var body *ast.BlockStmt
		switch l := c.Node().(type) {
		case *ast.ForStmt:
			cond, body = l.Cond, l.Body
		case *ast.RangeStmt:
			body = l.Body
		default:
			return // replaced by the plan before
		}
		var condOps, bodyOps []*ast.CallExpr
		if cond != nil {
			condOps = r.countOps(cond)
		}
		bodyOps = r.countOps(body)
		bound := n*int64(len(bodyOps)) + (n+1)*int64(len(condOps))
		if bound == 0 || bound > countPolls {
			return
		}
		for _, call := range append(condOps, bodyOps...) {
			sel := call.Fun.(*ast.SelectorExpr)
			b := &ast.BasicLit{ValuePos: call.Pos(), Kind: token.INT, Value: constant.MakeInt64(bound).ExactString()}
			switch sel.Sel.Name {
			case "AtomicR":
				sel.Sel = ident("CountR", sel.Sel.Pos())
				call.Args = append([]ast.Expr{b}, call.Args...)
			case "Gosched":
				sel.Sel = ident("CountGosched", sel.Sel.Pos())
				call.Args = []ast.Expr{b}
			case "Select":
				sel.Sel = ident("CountSelect", sel.Sel.Pos())
				call.Args = append([]ast.Expr{b}, call.Args...)
			}
		}
		r.changed = true
	}
}

// countOps returns the calls of rt.AtomicR, rt.Gosched and rt.Select in
// n, the rewritten condition or body of a counted loop, outside nested
// loops and function literals: the polls it runs at most once an
// iteration.
func (r *rewriter) countOps(n ast.Node) []*ast.CallExpr {
	var ops []*ast.CallExpr
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.CallExpr:
			sel, ok := m.Fun.(*ast.SelectorExpr)
			if !ok || !r.static[sel] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != r.rtName {
				return true
			}
			switch sel.Sel.Name {
			case "AtomicR", "Gosched", "Select":
				ops = append(ops, m)
			}
		}
		return true
	})
	return ops
}

// forTrips returns the largest number of iterations of fs, if it is a
// counted loop (above).
func (r *rewriter) forTrips(fs *ast.ForStmt) (int64, bool) {
	init, ok := fs.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 || fs.Cond == nil {
		return 0, false
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return 0, false
	}
	v, ok := r.info.Defs[id].(*types.Var)
	if !ok {
		return 0, false
	}
	basic, ok := v.Type().Underlying().(*types.Basic)
	if !ok || basic.Info()&types.IsInteger == 0 {
		return 0, false
	}
	unsigned := basic.Info()&types.IsUnsigned != 0
	c0, ok := r.intConst(init.Rhs[0])
	if !ok {
		return 0, false
	}
	step, ok := r.countStep(fs.Post, v)
	if !ok {
		return 0, false
	}
	isVar := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && r.info.Uses[id] == v
	}
	best := int64(-1)
	for _, e := range conjuncts(fs.Cond) {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok {
			continue
		}
		op := b.Op
		var c1 int64
		switch {
		case isVar(b.X):
			if c1, ok = r.intConst(b.Y); !ok {
				continue
			}
		case isVar(b.Y):
			if c1, ok = r.intConst(b.X); !ok {
				continue
			}
			switch op { // c1 < i is i > c1
			case token.LSS:
				op = token.GTR
			case token.LEQ:
				op = token.GEQ
			case token.GTR:
				op = token.LSS
			case token.GEQ:
				op = token.LEQ
			}
		default:
			continue
		}
		n := int64(-1)
		switch {
		case step > 0 && op == token.LSS:
			n = c1 - c0
		case step > 0 && op == token.LEQ && c1 < 127:
			// i reaches c1+1, which every integer type holds.
			n = c1 - c0 + 1
		case step < 0 && op == token.GTR:
			n = c0 - c1
		case step < 0 && op == token.GEQ && (c1 >= 1 || !unsigned && c1 > -127):
			// i reaches c1-1, which i's type holds.
			n = c0 - c1 + 1
		default:
			continue
		}
		if n < 0 {
			n = 0
		}
		if best < 0 || n < best {
			best = n
		}
	}
	if best < 0 || r.writes(fs.Cond, v) || r.writes(fs.Body, v) {
		return 0, false
	}
	return best, true
}

// countStep returns the step of a counted loop's post statement that
// moves v by one: +1 or -1.
func (r *rewriter) countStep(post ast.Stmt, v *types.Var) (int, bool) {
	isVar := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && r.info.Uses[id] == v
	}
	switch s := post.(type) {
	case *ast.IncDecStmt:
		if !isVar(s.X) {
			return 0, false
		}
		if s.Tok == token.INC {
			return 1, true
		}
		return -1, true
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || !isVar(s.Lhs[0]) {
			return 0, false
		}
		if d, ok := r.intConst(s.Rhs[0]); !ok || d != 1 {
			return 0, false
		}
		switch s.Tok {
		case token.ADD_ASSIGN:
			return 1, true
		case token.SUB_ASSIGN:
			return -1, true
		}
	}
	return 0, false
}

// rangeTrips returns the number of iterations of rs if it ranges over an
// integer constant or an array.
func (r *rewriter) rangeTrips(rs *ast.RangeStmt) (int64, bool) {
	t := r.typeOf(rs.X)
	if t == nil {
		return 0, false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := t.Underlying().(type) {
	case *types.Array:
		return u.Len(), true
	case *types.Basic:
		if u.Info()&types.IsInteger != 0 {
			return r.intConst(rs.X)
		}
	}
	return 0, false
}

// intConst returns the value of e, an integer constant that fits an int64.
func (r *rewriter) intConst(e ast.Expr) (int64, bool) {
	tv, ok := r.info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

// conjuncts returns the operands of the && at the top of e.
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{e}
}

// writes reports whether n may change v: an assignment or an increment of
// it, its address taken, a method called on it (a pointer receiver takes
// its address), a range assigning it; function literals included.
func (r *rewriter) writes(n ast.Node, v *types.Var) bool {
	if n == nil {
		return false
	}
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && r.info.Uses[id] == v
	}
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = is(m.X)
		case *ast.UnaryExpr:
			found = m.Op == token.AND && is(m.X)
		case *ast.SelectorExpr:
			found = is(m.X)
		case *ast.RangeStmt:
			found = m.Tok == token.ASSIGN && (m.Key != nil && is(m.Key) || m.Value != nil && is(m.Value))
		}
		return !found
	})
	return found
}

// hasGoto reports whether body has a goto, outside function literals.
func hasGoto(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			found = found || m.Tok == token.GOTO
		}
		return !found
	})
	return found
}
