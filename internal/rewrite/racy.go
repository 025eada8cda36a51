package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// RacyStmt is a statement that a race-detector phase saw racing (heddle
// test -racy). The rewriter makes it a scheduling point: a call of
// rt.RacyRead or rt.RacyWrite before it, so that an exploration can switch
// goroutines between it and the accesses it races with.
//
// The detector names a line, not a column or an expression, so the unit is
// the innermost statement on that line (every one, if several). A point
// goes before it; a loop whose header is racy gets one per iteration (in
// the condition of a three-clause loop, at the start of a range loop's
// body); an else-if whose condition is racy gets it in the condition.
type RacyStmt struct {
	File  string // absolute path of the original file
	Line  int    // 1-based line the detector reported
	Write bool   // the detector saw a write there (else only reads)
	Group string // the statements it raced with, transitively: the object of the scheduling point
}

func (s RacyStmt) String() string {
	rw := "read"
	if s.Write {
		rw = "write"
	}
	return fmt.Sprintf("%s:%d:%s:%s", s.File, s.Line, rw, s.Group)
}

// racyKey is the part of a file's cache key that its racy statements add.
func racyKey(stmts []RacyStmt) string {
	var parts []string
	for _, s := range stmts {
		parts = append(parts, s.String())
	}
	sort.Strings(parts)
	return "racy:" + strings.Join(parts, ";")
}

// racyPoints inserts the scheduling points of stmts (the racy statements of
// r's file) into the file, before the rest of the rewrite, marking every
// node it creates as one the rewrite must skip. It returns the statements
// it could not place: lines outside any function body (a package-level
// initializer), or with no statement of their own.
func (r *rewriter) racyPoints(stmts []RacyStmt) (missed []RacyStmt) {
	return r.racyPass(stmts, false)
}

// racyDryRun is racyPoints without changing the file.
func (r *rewriter) racyDryRun(stmts []RacyStmt) (missed []RacyStmt) {
	return r.racyPass(stmts, true)
}

func (r *rewriter) racyPass(stmts []RacyStmt, dry bool) (missed []RacyStmt) {
	if len(stmts) == 0 {
		return nil
	}
	p := &racyPass{r: r, dry: dry, lines: map[int][]RacyStmt{}, placed: map[int]bool{}}
	for _, s := range stmts {
		p.lines[s.Line] = append(p.lines[s.Line], s)
	}
	for _, d := range r.file.Decls {
		// Function bodies, and function literals in package-level
		// initializers.
		ast.Inspect(d, func(n ast.Node) bool {
			if b, ok := n.(*ast.BlockStmt); ok {
				p.list(&b.List)
				return false
			}
			return true
		})
	}
	for _, s := range stmts {
		if !p.placed[s.Line] {
			missed = append(missed, s)
		}
	}
	return missed
}

type racyPass struct {
	r      *rewriter
	dry    bool               // find what would be placed, change nothing
	lines  map[int][]RacyStmt // racy statements by line
	placed map[int]bool       // lines that got a scheduling point
}

func (p *racyPass) line(pos token.Pos) int { return p.r.fset.Position(pos).Line }

// list places the points of a statement list and of everything nested in
// it, and returns the lines its statements cover.
func (p *racyPass) list(stmts *[]ast.Stmt) map[int]bool {
	covered := map[int]bool{}
	var out []ast.Stmt
	changed := false
	for _, s := range *stmts {
		inner := p.nested(s)
		for l := range inner {
			covered[l] = true
		}
		if _, clause := s.(*ast.CaseClause); clause {
			out = append(out, s)
			continue
		}
		if _, clause := s.(*ast.CommClause); clause {
			out = append(out, s)
			continue
		}
		first, last := p.line(s.Pos()), p.line(s.End())
		for l := first; l <= last; l++ {
			covered[l] = true
		}
		var mine []int
		for l := first; l <= last; l++ {
			if len(p.lines[l]) > 0 && !inner[l] {
				mine = append(mine, l)
			}
		}
		if len(mine) == 0 {
			out = append(out, s)
			continue
		}
		before := p.place(s, mine)
		if len(before) > 0 {
			changed = true
		}
		out = append(out, before...)
		out = append(out, s)
	}
	if changed && !p.dry {
		*stmts = out
	}
	return covered
}

// nested places the points of the statement lists inside s (blocks,
// clauses of a switch or select, bodies of function literals, else-if
// conditions) and returns the lines they cover.
func (p *racyPass) nested(s ast.Stmt) map[int]bool {
	covered := map[int]bool{}
	add := func(m map[int]bool) {
		for l := range m {
			covered[l] = true
		}
	}
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			add(p.list(&n.List))
			return false
		case *ast.CaseClause:
			add(p.list(&n.Body))
			return false
		case *ast.CommClause:
			add(p.list(&n.Body))
			return false
		case *ast.IfStmt:
			if n == s {
				return true
			}
			// An else-if: not in a list, so its point goes into its
			// condition.
			add(p.nested(n))
			var mine []int
			for l := p.line(n.Pos()); l <= p.line(n.Body.Lbrace); l++ {
				if len(p.lines[l]) > 0 && !covered[l] {
					mine = append(mine, l)
				}
			}
			if len(mine) > 0 && p.wrapCond(&n.Cond, mine) {
				for _, l := range mine {
					covered[l] = true
				}
			}
			return false
		}
		return true
	})
	return covered
}

// place makes s, whose own lines mine are racy, a scheduling point and
// returns the statements to insert before it.
func (p *racyPass) place(s ast.Stmt, mine []int) []ast.Stmt {
	target := s
	if ls, ok := s.(*ast.LabeledStmt); ok {
		target = ls.Stmt
	}
	switch t := target.(type) {
	case *ast.ForStmt:
		// The condition runs before every iteration: the point goes
		// there, and before the loop too if its init is racy.
		var initLines, rest []int
		for _, l := range mine {
			if t.Init != nil && l >= p.line(t.Init.Pos()) && l <= p.line(t.Init.End()) && (t.Cond == nil || l < p.line(t.Cond.Pos())) {
				initLines = append(initLines, l)
			} else {
				rest = append(rest, l)
			}
		}
		if len(rest) > 0 && t.Cond != nil && p.wrapCond(&t.Cond, rest) {
			return p.calls(initLines, s.Pos())
		}
	case *ast.RangeStmt:
		// The iteration reads what it ranges over before every
		// iteration: a point before the loop and one at the start of
		// its body.
		if body := p.calls(mine, t.Body.Lbrace); !p.dry {
			t.Body.List = append(body, t.Body.List...)
		}
	}
	return p.calls(mine, s.Pos())
}

// wrapCond puts the points of lines into a boolean condition:
// rt.RacyRead("g") && (cond). It reports whether it could: the condition
// must be of the predeclared type bool.
func (p *racyPass) wrapCond(cond *ast.Expr, lines []int) bool {
	if *cond == nil || !isPredeclaredBool(p.r.typeOf(*cond)) {
		return false
	}
	if p.dry {
		p.exprs(lines, (*cond).Pos())
		return true
	}
	var x ast.Expr = &ast.ParenExpr{Lparen: (*cond).Pos(), X: *cond, Rparen: (*cond).End()}
	p.r.skip[x] = true
	calls := p.exprs(lines, (*cond).Pos())
	for i := len(calls) - 1; i >= 0; i-- {
		b := &ast.BinaryExpr{X: calls[i], OpPos: (*cond).Pos(), Op: token.LAND, Y: x}
		p.r.skip[b] = true
		x = b
	}
	*cond = x
	return true
}

// calls are the point statements of lines, at pos.
func (p *racyPass) calls(lines []int, pos token.Pos) []ast.Stmt {
	var out []ast.Stmt
	for _, e := range p.exprs(lines, pos) {
		st := &ast.ExprStmt{X: e}
		p.r.skip[st] = true
		out = append(out, st)
	}
	return out
}

// exprs are the calls of the points of lines: one per group, a write if
// any statement of the group on those lines writes.
func (p *racyPass) exprs(lines []int, pos token.Pos) []ast.Expr {
	write := map[string]bool{}
	var groups []string
	for _, l := range lines {
		p.placed[l] = true
		for _, s := range p.lines[l] {
			if _, ok := write[s.Group]; !ok {
				groups = append(groups, s.Group)
			}
			write[s.Group] = write[s.Group] || s.Write
		}
	}
	sort.Strings(groups)
	var out []ast.Expr
	for _, g := range groups {
		name := "RacyRead"
		if write[g] {
			name = "RacyWrite"
		}
		call := p.r.rtCall(name, pos, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(g)})
		ast.Inspect(call, func(n ast.Node) bool {
			if n != nil {
				p.r.skip[n] = true
			}
			return true
		})
		out = append(out, call)
	}
	return out
}
