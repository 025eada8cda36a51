package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// Marked poll loops.
//
// heddle keeps a goroutine that polled a few times in a row without
// progress from running while another can (the engine's dropSpinners, the
// exhaustive strategies' spinTracker), and such a drop bounds an
// exhaustive search's claim: a loop with a counter ends after its last
// poll, and the schedules in which it ends before the others moved are
// the ones left out (docs/design.md, "The spin bound"). A loop whose
// iterations, all but the one that leaves it, change nothing is not such
// a loop: an iteration that reads what the one before read ends where it
// began, and the run goes on as without it. The rewriter marks those
// loops, and their drops bound nothing (internal/engine/spinmark.go has
// the argument).
//
// A loop is marked when it has no init and no post statement, and its
// condition and every path of its body back to its head (the end of the
// body, a continue) are pure:
//
//   - expressions read variables, fields, elements, constants and nothing
//     else, convert, compare and compute; the only calls are atomic loads
//     (sync/atomic's Load functions and the Load methods of its types),
//     runtime.Gosched, len and cap, and conversions;
//   - statements are those expressions, short variable declarations of
//     new variables (they die with the iteration), if statements, blocks,
//     break and continue, and selects with a default whose other cases
//     receive and then leave the loop.
//
// Paths that leave the loop (a block ending in return, a break or goto out
// of it, a continue of an outer loop, panic) may do anything: they are the
// last iteration's. Nothing of the loop is written along a path back, so
// the goroutine is at the head with the same locals after every iteration
// but the last.
//
// The loop gets a variable of its own, false in the first iteration and
// true from the second on, and its atomic loads, Gosched calls and its
// select on the paths back are the marked operations rt.PollR,
// rt.PollGosched and rt.PollSelect, which announce their step as marked
// from the second iteration on:
//
//	for !flag.Load() { runtime.Gosched() }
//	->
//	for heddle_p := false; !rt.PollR(heddle_p, &flag).Load(); heddle_p = true { rt.PollGosched(heddle_p) }
//
// The other steps of the loop (a len of a channel) stay unmarked: a drop
// there bounds the claim, as before.

// pollScan is the analysis of one loop (planPollLoop).
type pollScan struct {
	r     *rewriter
	label types.Object // the loop's label, or nil
	ops   int          // operations to mark on the paths back
	// exits are the source ranges of the blocks that leave the loop:
	// their operations are not marked.
	exits [][2]token.Pos
}

// planPollLoop marks fs if it is a poll loop (above). label is the loop's
// label object, or nil.
func (r *rewriter) planPollLoop(fs *ast.ForStmt, label types.Object) {
	if fs.Init != nil || fs.Post != nil || fs.Body == nil {
		return
	}
	p := &pollScan{r: r, label: label}
	if fs.Cond != nil && !p.expr(fs.Cond) {
		return
	}
	if !p.stmts(fs.Body.List, false) || p.ops == 0 {
		return
	}
	prev := r.plans[fs]
	r.plans[fs] = func(c *astutil.Cursor) {
		if prev != nil {
			prev(c)
		}
		fs, ok := c.Node().(*ast.ForStmt)
		if !ok || fs.Init != nil || fs.Post != nil {
			return
		}
		name := r.tmp("p")
		pos := fs.For
		marked := 0
		mark := func(c *astutil.Cursor) bool {
			n := c.Node()
			if n == nil {
				return true
			}
			if p.inExit(n.Pos()) {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !r.static[sel] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != r.rtName {
				return true
			}
			again := ident(name, call.Pos())
			switch sel.Sel.Name {
			case "AtomicR":
				sel.Sel = ident("PollR", sel.Sel.Pos())
				call.Args = append([]ast.Expr{again}, call.Args...)
			case "Gosched":
				sel.Sel = ident("PollGosched", sel.Sel.Pos())
				call.Args = []ast.Expr{again}
			case "Select":
				if len(call.Args) == 0 {
					return true
				}
				if b, ok := call.Args[0].(*ast.Ident); !ok || b.Name != "true" {
					return true
				}
				sel.Sel = ident("PollSelect", sel.Sel.Pos())
				call.Args = append([]ast.Expr{again}, call.Args[1:]...)
			default:
				return true
			}
			marked++
			return true
		}
		if fs.Cond != nil {
			fs.Cond = astutil.Apply(fs.Cond, mark, nil).(ast.Expr)
		}
		astutil.Apply(fs.Body, mark, nil)
		if marked == 0 {
			return
		}
		fs.Init = define(pos, idents(pos, name), ident("false", pos))
		fs.Post = &ast.AssignStmt{Lhs: idents(pos, name), TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident("true", pos)}}
		r.changed = true
	}
}

// inExit reports whether pos is in a block that leaves the loop.
func (p *pollScan) inExit(pos token.Pos) bool {
	for _, x := range p.exits {
		if pos >= x[0] && pos < x[1] {
			return true
		}
	}
	return false
}

// stmts reports whether list is pure on every path back to the loop's
// head (blocks that leave the loop excepted). inSel: list is a select
// clause's body, where a break without a label ends the select, not the
// loop.
func (p *pollScan) stmts(list []ast.Stmt, inSel bool) bool {
	for _, s := range list {
		if !p.stmt(s, inSel) {
			return false
		}
	}
	return true
}

func (p *pollScan) stmt(s ast.Stmt, inSel bool) bool {
	switch s := s.(type) {
	case *ast.EmptyStmt:
		return true
	case *ast.ExprStmt:
		return p.expr(s.X)
	case *ast.AssignStmt:
		return p.define(s)
	case *ast.BranchStmt:
		// continue goes back to the head (or leaves, to an outer loop),
		// break leaves the loop or ends a select. A goto could reenter
		// the loop after an exit's writes.
		return s.Tok == token.CONTINUE || s.Tok == token.BREAK
	case *ast.ReturnStmt:
		return true // leaves: the results are the last iteration's
	case *ast.BlockStmt:
		return p.block(s.List, s.Lbrace, s.Rbrace+1, inSel)
	case *ast.IfStmt:
		if s.Init != nil {
			as, ok := s.Init.(*ast.AssignStmt)
			if !ok || !p.define(as) {
				return false
			}
		}
		if !p.expr(s.Cond) || !p.block(s.Body.List, s.Body.Lbrace, s.Body.Rbrace+1, inSel) {
			return false
		}
		switch e := s.Else.(type) {
		case nil:
			return true
		case *ast.BlockStmt:
			return p.block(e.List, e.Lbrace, e.Rbrace+1, inSel)
		default:
			return p.stmt(e, inSel)
		}
	case *ast.SelectStmt:
		return p.sel(s)
	}
	return false
}

// block accepts a block that leaves the loop (recording its range
// [from, to)) or a pure one.
func (p *pollScan) block(list []ast.Stmt, from, to token.Pos, inSel bool) bool {
	if p.exitBlock(list, inSel) {
		p.exits = append(p.exits, [2]token.Pos{from, to})
		return true
	}
	return p.stmts(list, inSel)
}

// define accepts a short variable declaration of pure values: its
// variables are the iteration's (an assignment to an existing variable
// would carry a value to the next iteration).
func (p *pollScan) define(as *ast.AssignStmt) bool {
	if as.Tok != token.DEFINE {
		return false
	}
	for _, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			return false
		}
		if id.Name != "_" && p.r.info.Defs[id] == nil {
			return false // redeclared: assigned
		}
	}
	for _, e := range as.Rhs {
		if !p.expr(e) {
			return false
		}
	}
	return true
}

// sel accepts a select with a default whose other cases receive and then
// leave the loop; the default's body is pure or leaves too.
func (p *pollScan) sel(s *ast.SelectStmt) bool {
	dflt := false
	for _, cl := range s.Body.List {
		cc := cl.(*ast.CommClause)
		end := cc.Colon + 1
		if n := len(cc.Body); n > 0 {
			end = cc.Body[n-1].End()
		}
		switch comm := cc.Comm.(type) {
		case nil:
			dflt = true
			if !p.block(cc.Body, cc.Colon, end, true) {
				return false
			}
			continue
		case *ast.ExprStmt:
			u, ok := ast.Unparen(comm.X).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW || !p.expr(u.X) {
				return false
			}
		case *ast.AssignStmt:
			if len(comm.Rhs) != 1 {
				return false
			}
			u, ok := ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW || !p.expr(u.X) {
				return false
			}
			if comm.Tok == token.ASSIGN {
				// Assigned when the case is taken, which leaves the
				// loop: only the operands must be pure.
				for _, l := range comm.Lhs {
					if !p.expr(l) {
						return false
					}
				}
			}
		default:
			return false // a send: a closed channel panics in the step
		}
		if !p.exitBlock(cc.Body, true) {
			return false
		}
		p.exits = append(p.exits, [2]token.Pos{cc.Colon, end})
	}
	if !dflt {
		return false
	}
	p.ops++
	return true
}

// exitBlock reports whether list leaves the loop on every path: its last
// statement leaves it, and nothing in it goes back to the loop's head (a
// continue of the loop, or, in a select clause, a break that ends the
// select and so goes on with the body). inSel: list is a select clause's
// body.
func (p *pollScan) exitBlock(list []ast.Stmt, inSel bool) bool {
	if len(list) == 0 || !p.leaves(list[len(list)-1], inSel) {
		return false
	}
	back := false
	// loops: for and range statements of the block around the node;
	// breaks: those and the switches and selects.
	var walk func(n ast.Node, loops, breaks int)
	walk = func(n ast.Node, loops, breaks int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if back || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				if m != n {
					walk(m, loops+1, breaks+1)
					return false
				}
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					walk(m, loops, breaks+1)
					return false
				}
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO:
					back = true // a label in the block could be a way back
				case m.Label != nil:
					if m.Tok == token.CONTINUE && p.label != nil && p.r.info.Uses[m.Label] == p.label {
						back = true
					}
				case m.Tok == token.CONTINUE && loops == 0:
					back = true
				case m.Tok == token.BREAK && inSel && breaks == 0:
					back = true
				}
			}
			return true
		})
	}
	walk(&ast.BlockStmt{List: list}, 0, 0)
	return !back
}

// leaves reports whether s leaves the loop: a return, a panic, a break
// of the loop (inSel: a break in a select clause ends the select) or of
// an outer statement, a continue of an outer loop, a goto.
func (p *pollScan) leaves(s ast.Stmt, inSel bool) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		switch s.Tok {
		case token.BREAK:
			return s.Label != nil || !inSel
		case token.CONTINUE:
			return s.Label != nil && (p.label == nil || p.r.info.Uses[s.Label] != p.label)
		case token.GOTO:
			return true
		}
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				if b, ok := p.r.info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
					return true
				}
			}
		}
	}
	return false
}

// expr reports whether e is pure (above), counting the operations it
// would mark.
func (p *pollScan) expr(e ast.Expr) bool {
	r := p.r
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return p.expr(e.X)
	case *ast.StarExpr:
		return p.expr(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && p.expr(e.X)
	case *ast.BinaryExpr:
		return p.expr(e.X) && p.expr(e.Y)
	case *ast.SelectorExpr:
		s, ok := r.info.Selections[e]
		if !ok {
			return true // a package's variable or constant
		}
		return s.Kind() == types.FieldVal && p.expr(e.X)
	case *ast.IndexExpr:
		if _, isFunc := r.typeOf(e.X).(*types.Signature); isFunc {
			return false
		}
		return p.expr(e.X) && p.expr(e.Index)
	case *ast.TypeAssertExpr:
		return e.Type != nil && p.expr(e.X)
	case *ast.CallExpr:
		return p.call(e)
	}
	return false
}

func (p *pollScan) call(call *ast.CallExpr) bool {
	r := p.r
	args := func() bool {
		for _, a := range call.Args {
			if !p.expr(a) {
				return false
			}
		}
		return true
	}
	fun := ast.Unparen(call.Fun)
	if tv, ok := r.info.Types[fun]; ok && tv.IsType() {
		return args() // a conversion
	}
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			return (b.Name() == "len" || b.Name() == "cap") && args()
		}
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s, ok := r.info.Selections[sel]; ok {
			// A method: the Load of an atomic type.
			fn, _ := s.Obj().(*types.Func)
			if s.Kind() != types.MethodVal || fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || fn.Name() != "Load" {
				return false
			}
			if !p.expr(sel.X) || !args() {
				return false
			}
			p.ops++
			return true
		}
	}
	fn := r.funcObj(fun)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch {
	case fn.Pkg().Path() == "sync/atomic" && strings.HasPrefix(fn.Name(), "Load") && len(call.Args) == 1:
	case fn.Pkg().Path() == "runtime" && fn.Name() == "Gosched" && len(call.Args) == 0:
	default:
		return false
	}
	if !args() {
		return false
	}
	p.ops++
	return true
}
