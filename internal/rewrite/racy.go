package rewrite

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
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
	p.mapFuncs()
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
	// mapGroup, if set, is the group mapCall's steps stand for (mapPoints).
	mapGroup string
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
		before, after := p.place(s, mine)
		if len(before)+len(after) > 0 {
			changed = true
		}
		out = append(out, before...)
		if ns := p.split(s, mine); ns != s {
			changed = true
			out = append(out, ns)
		} else {
			out = append(out, s)
		}
		out = append(out, after...)
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
// returns the statements to insert before and after it: the points of its
// groups, and the model of its map accesses (mapOps).
func (p *racyPass) place(s ast.Stmt, mine []int) (before, after []ast.Stmt) {
	if p.captures(s, mine) {
		// A plain assignment captured whole: rt.RacySet is the write's
		// point, and a read point before it if the value reads memory.
		if p.readsMemory(s.(*ast.AssignStmt).Rhs[0]) {
			before = p.calls(mine, s.Pos(), true)
		} else {
			for _, l := range mine {
				p.placed[l] = true
			}
		}
	} else if p.splits(s, mine) {
		// The read of a read-modify-write; split puts the write in the
		// statement.
		before = p.calls(mine, s.Pos(), true)
	} else if mb, ma, ok := p.mapPoints(s, mine); ok {
		return mb, ma
	} else {
		before = p.placeGroups(s, mine)
	}
	mb, ma := p.mapOps(s)
	return append(before, mb...), ma
}

// mapPoints makes the map accesses of s, whose own lines mine are racy,
// its only scheduling points when they can stand for its group: the
// lines are in one group, and the accesses are all reads (a lookup, a
// range) on lines that only read, or all write windows on lines that
// write. Each access then also reads (or writes) the group
// (rt.MapRead(m, "g"), engine.Exec.MapIn), so that the statement is
// ordered with the other statements of its group as the group's own step
// ordered it; with both steps, the group's and the map's, placed
// independently among another goroutine's, a range against one write had
// classes in the square of the map's size. It reports whether it did.
func (p *racyPass) mapPoints(s ast.Stmt, mine []int) (before, after []ast.Stmt, ok bool) {
	groups := p.groups(mine)
	if len(groups) != 1 {
		return nil, nil, false
	}
	write := false
	for _, l := range mine {
		for _, st := range p.lines[l] {
			write = write || st.Write
		}
	}
	if r, isRange := s.(*ast.RangeStmt); isRange {
		// The iteration reads; mapOps puts its steps where placeGroups
		// would put the group's.
		if write || !p.isMap(r.X) || !p.simple(r.X) || !p.mapName(r.X) {
			return nil, nil, false
		}
	} else {
		mb, ma := p.mapOps(s) // no change to s but for a range
		if len(mb) == 0 {
			return nil, nil, false
		}
		for _, st := range append(mb, ma...) {
			name := st.(*ast.ExprStmt).X.(*ast.CallExpr).Fun.(*ast.SelectorExpr).Sel.Name
			if (name == "MapRead") == write {
				return nil, nil, false
			}
		}
	}
	p.mapGroup = groups[0]
	before, after = p.mapOps(s)
	p.mapGroup = ""
	for _, l := range mine {
		p.placed[l] = true
	}
	return before, after, true
}

// racyMapFuncs are the functions of the standard library that access a
// map of their caller's in native code the rewriter does not see, and
// their wrappers in package rt, of the same type parameters and
// signature, which model those accesses as the Go runtime checks them
// (rt/racymaps.go). maps.Collect makes a map of its own: the iteration of
// the caller's map, if any, is its argument's (maps.All).
var racyMapFuncs = map[string]string{
	"maps.Copy":       "MapsCopy",
	"maps.Clone":      "MapsClone",
	"maps.Equal":      "MapsEqual",
	"maps.EqualFunc":  "MapsEqualFunc",
	"maps.DeleteFunc": "MapsDeleteFunc",
	"maps.All":        "MapsAll",
	"maps.Keys":       "MapsKeys",
	"maps.Values":     "MapsValues",
	"maps.Insert":     "MapsInsert",
	// fmt and encoding/json iterate the maps of their arguments
	// (rt/racyfmt.go).
	"fmt.Sprint":                  "RacySprint",
	"fmt.Sprintf":                 "RacySprintf",
	"fmt.Sprintln":                "RacySprintln",
	"fmt.Errorf":                  "RacyErrorf",
	"fmt.Print":                   "RacyPrint",
	"fmt.Printf":                  "RacyPrintf",
	"fmt.Println":                 "RacyPrintln",
	"fmt.Fprint":                  "RacyFprint",
	"fmt.Fprintf":                 "RacyFprintf",
	"fmt.Fprintln":                "RacyFprintln",
	"encoding/json.Marshal":       "RacyJSONMarshal",
	"encoding/json.MarshalIndent": "RacyJSONMarshalIndent",
}

// racyMapMethods are the methods of package reflect that access a map
// (rt/racyreflect.go): they are routed as racyMapFuncs are, to a function
// taking the receiver first.
var racyMapMethods = map[string]string{
	"reflect.Value.MapIndex":    "ReflectMapIndex",
	"reflect.Value.MapKeys":     "ReflectMapKeys",
	"reflect.Value.SetMapIndex": "ReflectSetMapIndex",
	"reflect.MapIter.Next":      "ReflectMapIterNext",
}

// mapFuncs routes the calls of racyMapFuncs on racy lines to their
// wrappers in rt: the call's arguments are evaluated as before, and the
// wrapper takes its steps inside the call, where the native function
// would access the maps. The detector names the line of the call (the
// caller's frame), which may be the line of a function literal's body
// that got the point (maps.DeleteFunc(m, func(k, v int) bool { ... })):
// a call qualifies if any of its lines is racy.
func (p *racyPass) mapFuncs() {
	if p.dry {
		return
	}
	ast.Inspect(p.r.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := ast.Unparen(call.Fun)
		switch f := fun.(type) {
		case *ast.IndexExpr:
			fun = f.X
		case *ast.IndexListExpr:
			fun = f.X
		}
		sel, ok := fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		fn, ok := p.r.info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil {
			return true
		}
		key := fn.Pkg().Path() + "." + fn.Name()
		table := racyMapFuncs
		if recv := fn.Signature().Recv(); recv != nil {
			if _, ok := p.r.info.Selections[sel]; !ok {
				return true // a method expression: not routed
			}
			t := recv.Type()
			if pt, ok := t.(*types.Pointer); ok {
				t = pt.Elem()
			}
			named, ok := types.Unalias(t).(*types.Named)
			if !ok {
				return true
			}
			key = fn.Pkg().Path() + "." + named.Obj().Name() + "." + fn.Name()
			table = racyMapMethods
		}
		name, ok := table[key]
		if !ok {
			p.printArgs(call, fn)
			return true
		}
		for l := p.line(call.Pos()); l <= p.line(call.End()); l++ {
			if len(p.lines[l]) > 0 {
				p.r.racyFuncs[sel] = name
				break
			}
		}
		return true
	})
}

func (p *racyPass) placeGroups(s ast.Stmt, mine []int) []ast.Stmt {
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
			return p.calls(initLines, s.Pos(), false)
		}
	case *ast.RangeStmt:
		// The iteration reads what it ranges over before every
		// iteration: a point before the loop and one at the start of
		// its body.
		if body := p.calls(mine, t.Body.Lbrace, false); !p.dry {
			t.Body.List = append(body, t.Body.List...)
		}
	}
	return p.calls(mine, s.Pos(), false)
}

// wrapCond puts the points of lines into a boolean condition:
// rt.RacyRead("g") && (cond). It reports whether it could: the condition
// must be of the predeclared type bool.
func (p *racyPass) wrapCond(cond *ast.Expr, lines []int) bool {
	if *cond == nil || !isPredeclaredBool(p.r.typeOf(*cond)) {
		return false
	}
	if p.dry {
		p.exprs(lines, (*cond).Pos(), false)
		return true
	}
	var x ast.Expr = &ast.ParenExpr{Lparen: (*cond).Pos(), X: *cond, Rparen: (*cond).End()}
	p.r.skip[x] = true
	calls := p.condMapReads(*cond, lines)
	if calls == nil {
		calls = p.exprs(lines, (*cond).Pos(), false)
	}
	for i := len(calls) - 1; i >= 0; i-- {
		b := &ast.BinaryExpr{X: calls[i], OpPos: (*cond).Pos(), Op: token.LAND, Y: x}
		p.r.skip[b] = true
		x = b
	}
	*cond = x
	return true
}

// condMapReads are the points of a condition, of lines that only read and
// are in one group, that looks up maps: an rt.MapRead(m, "g") of each map,
// which checks the lookup as the Go runtime does (a write of m in
// progress: "concurrent map read and map write") and reads the group, as
// mapPoints makes a statement's map accesses its points. A loop's
// condition is evaluated before every iteration, so a statement's points
// before it (mapOps) cannot stand for it: a loop polling a map entry
// another goroutine writes (TestPollMapReadVsWrite) never had its reads
// checked. It returns nil where the group's points must do.
func (p *racyPass) condMapReads(cond ast.Expr, lines []int) []ast.Expr {
	groups := p.groups(lines)
	if len(groups) != 1 || !p.simple(cond) {
		return nil
	}
	for _, l := range lines {
		for _, st := range p.lines[l] {
			if st.Write {
				return nil
			}
		}
	}
	var maps []ast.Expr
	p.lookups(cond, nil, &maps)
	var out []ast.Expr
	seen := map[string]bool{}
	p.mapGroup = groups[0]
	defer func() { p.mapGroup = "" }()
	for _, m := range maps {
		if key := types.ExprString(m); !seen[key] && p.mapName(m) {
			seen[key] = true
			out = append(out, p.mapCall("MapRead", m, cond.Pos()).(*ast.ExprStmt).X)
		}
	}
	if len(out) > 0 {
		for _, l := range lines {
			p.placed[l] = true
		}
	}
	return out
}

// calls are the point statements of lines, at pos (reads only if read).
func (p *racyPass) calls(lines []int, pos token.Pos, read bool) []ast.Stmt {
	var out []ast.Stmt
	for _, e := range p.exprs(lines, pos, read) {
		st := &ast.ExprStmt{X: e}
		p.r.skip[st] = true
		out = append(out, st)
	}
	return out
}

// exprs are the calls of the points of lines: one per group, a write if
// any statement of the group on those lines writes (and not read).
func (p *racyPass) exprs(lines []int, pos token.Pos, read bool) []ast.Expr {
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
		if write[g] && !read {
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

// mapOps models the map accesses of a racy statement s as the Go runtime
// checks them (rt.MapRead, rt.MapWriteBegin/End, rt.MapIter): it returns
// the calls to put before and after s. Only statements whose own
// evaluation has no other scheduling point qualify (no call but of a
// builtin or a conversion, no receive, no function literal), so that no
// synchronization falls inside a write's window; only maps named by a
// variable or a field path are modelled, since the calls evaluate the
// map again; a lookup is modelled only where it is evaluated whatever
// the values (not on the right of && or ||), so that naming the map
// before the statement cannot panic where the statement would not.
func (p *racyPass) mapOps(s ast.Stmt) (before, after []ast.Stmt) {
	var exprs, writes []ast.Expr // expressions evaluated by s itself; maps it writes
	lhs := map[ast.Expr]bool{}
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok && p.isMap(ix.X) {
				writes = append(writes, ix.X)
				lhs[ix] = true
			}
		}
		exprs = append(append(exprs, s.Lhs...), s.Rhs...)
	case *ast.IncDecStmt:
		if ix, ok := ast.Unparen(s.X).(*ast.IndexExpr); ok && p.isMap(ix.X) {
			writes = append(writes, ix.X)
			lhs[ix] = true
		}
		exprs = append(exprs, s.X)
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok && len(call.Args) > 0 && (p.builtin(call, "delete") || p.builtin(call, "clear")) && p.isMap(call.Args[0]) {
			writes = append(writes, call.Args[0])
		}
		exprs = append(exprs, s.X)
	case *ast.ReturnStmt:
		exprs = append(exprs, s.Results...)
	case *ast.SendStmt:
		// The channel and the value are evaluated before the send's own
		// step (rt.Send): a lookup in them is checked before the
		// statement, as a return's is.
		exprs = append(exprs, s.Chan, s.Value)
	case *ast.IfStmt:
		if a, ok := s.Init.(*ast.AssignStmt); ok {
			exprs = append(exprs, a.Rhs...)
		}
		if s.Init != nil {
			if _, ok := s.Init.(*ast.AssignStmt); !ok {
				return nil, nil
			}
		}
		exprs = append(exprs, s.Cond)
	case *ast.RangeStmt:
		if p.isMap(s.X) && p.simple(s.X) && p.mapName(s.X) {
			// Each step of the iteration checks that no write is in
			// progress; the first one before the loop.
			it := p.mapCall("MapIter", s.X, s.Body.Lbrace)
			if !p.dry {
				s.Body.List = append([]ast.Stmt{it}, s.Body.List...)
			}
			return []ast.Stmt{p.mapCall("MapIter", s.X, s.Pos())}, nil
		}
		return nil, nil
	default:
		return nil, nil
	}
	for _, e := range exprs {
		if !p.simple(e) {
			return nil, nil
		}
	}
	var reads []ast.Expr
	for _, e := range exprs {
		p.lookups(e, lhs, &reads)
	}
	seen := map[string]bool{}
	add := func(name string, m ast.Expr, list *[]ast.Stmt) {
		if !p.mapName(m) {
			return
		}
		key := name + ":" + types.ExprString(m)
		if seen[key] {
			return
		}
		seen[key] = true
		*list = append(*list, p.mapCall(name, m, s.Pos()))
	}
	for _, m := range writes {
		add("MapWriteBegin", m, &before)
		add("MapWriteEnd", m, &after)
	}
	for _, m := range reads {
		if !seen["MapWriteBegin:"+types.ExprString(m)] {
			add("MapRead", m, &before)
		}
	}
	return before, after
}

// lookups appends to reads the maps of the lookups e evaluates whatever
// the values: it does not look right of && and ||.
func (p *racyPass) lookups(e ast.Expr, lhs map[ast.Expr]bool, reads *[]ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				p.lookups(n.X, lhs, reads)
				return false
			}
		case *ast.IndexExpr:
			if !lhs[n] && p.isMap(n.X) {
				*reads = append(*reads, n.X)
			}
		}
		return true
	})
}

// simple reports whether evaluating e involves no scheduling point: no
// call but of a builtin or a conversion, no receive, no function literal.
func (p *racyPass) simple(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			if tv, isT := p.r.info.Types[n.Fun]; isT && tv.IsType() {
				return true
			}
			if id, isId := ast.Unparen(n.Fun).(*ast.Ident); isId {
				if _, b := p.r.info.Uses[id].(*types.Builtin); b {
					return true
				}
			}
			ok = false
		}
		return ok
	})
	return ok
}

// mapName reports whether m names a map by a variable or a path of
// fields, which the calls may evaluate again.
func (p *racyPass) mapName(m ast.Expr) bool {
	switch m := ast.Unparen(m).(type) {
	case *ast.Ident:
		_, isVar := p.r.info.Uses[m].(*types.Var)
		return isVar
	case *ast.SelectorExpr:
		if sel, ok := p.r.info.Selections[m]; ok && sel.Kind() == types.FieldVal {
			return p.mapName(m.X) || p.isValue(m.X)
		}
	case *ast.StarExpr:
		return p.mapName(m.X)
	}
	return false
}

// isValue reports whether x is a variable (the base of a field path).
func (p *racyPass) isValue(x ast.Expr) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	_, isVar := p.r.info.Uses[id].(*types.Var)
	return isVar
}

func (p *racyPass) isMap(x ast.Expr) bool {
	t := p.r.typeOf(x)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Map)
	return ok
}

func (p *racyPass) builtin(call *ast.CallExpr, name string) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || id.Name != name {
		return false
	}
	_, b := p.r.info.Uses[id].(*types.Builtin)
	return b
}

// mapCall is the statement rt.<name>(m), a copy of m at pos.
func (p *racyPass) mapCall(name string, m ast.Expr, pos token.Pos) ast.Stmt {
	args := []ast.Expr{copyExpr(m, pos)}
	if p.mapGroup != "" {
		args = append(args, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(p.mapGroup)})
	}
	call := p.r.rtCall(name, pos, args...)
	st := &ast.ExprStmt{X: call}
	ast.Inspect(st, func(n ast.Node) bool {
		if n != nil {
			p.r.skip[n] = true
		}
		return true
	})
	return st
}

// copyExpr copies a map name (mapName) with positions at pos. The copy's
// identifiers resolve as the original's, as the call is in the same scope.
func copyExpr(e ast.Expr, pos token.Pos) ast.Expr {
	switch e := e.(type) {
	case *ast.Ident:
		return ident(e.Name, pos)
	case *ast.ParenExpr:
		return &ast.ParenExpr{Lparen: pos, X: copyExpr(e.X, pos), Rparen: pos}
	case *ast.SelectorExpr:
		return &ast.SelectorExpr{X: copyExpr(e.X, pos), Sel: ident(e.Sel.Name, pos)}
	case *ast.StarExpr:
		return &ast.StarExpr{Star: pos, X: copyExpr(e.X, pos)}
	}
	panic(fmt.Sprintf("copyExpr: %T", e))
}

// splits reports whether s, whose own lines mine are racy, is a
// read-modify-write of a variable or a path of fields that a racy line
// writes: x++, x--, x op= e. Natively its read and its write are two
// accesses, and another goroutine's access can come between them (two
// racing x++ lose an update), so it gets two points: a read before it,
// and a write after the read (split).
func (p *racyPass) splits(s ast.Stmt, mine []int) bool {
	var lhs, rhs ast.Expr
	switch s := s.(type) {
	case *ast.IncDecStmt:
		lhs = s.X
	case *ast.AssignStmt:
		if s.Tok == token.ASSIGN || s.Tok == token.DEFINE || len(s.Lhs) != 1 || len(s.Rhs) != 1 {
			return false
		}
		lhs, rhs = s.Lhs[0], s.Rhs[0]
	default:
		return false
	}
	write := false
	for _, l := range mine {
		for _, st := range p.lines[l] {
			write = write || st.Write
		}
	}
	if !write || p.isMap(lhs) || !p.mapName(lhs) || (rhs != nil && !p.simple(rhs)) {
		return false
	}
	return p.r.typeOf(lhs) != nil
}

// split returns s, or, if it splits (see splits), the assignment that
// makes its write a point of its own: x = rt.RacyStore(x op e, groups...),
// which evaluates x op e (the read, in the step of the point before the
// statement), announces the write of each group, and assigns.
func (p *racyPass) split(s ast.Stmt, mine []int) ast.Stmt {
	if p.dry {
		return s
	}
	if p.captures(s, mine) {
		a := s.(*ast.AssignStmt)
		return p.racySet(a.Lhs[0], a.Rhs[0], p.groups(mine)[0], s.Pos())
	}
	if !p.splits(s, mine) {
		return s
	}
	var lhs ast.Expr
	var value ast.Expr
	pos := s.Pos()
	switch s := s.(type) {
	case *ast.IncDecStmt:
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		lhs = s.X
		value = &ast.BinaryExpr{X: copyExpr(ast.Unparen(s.X), pos), OpPos: pos, Op: op, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "1"}}
	case *ast.AssignStmt:
		lhs = s.Lhs[0]
		y := &ast.ParenExpr{Lparen: pos, X: s.Rhs[0], Rparen: pos}
		value = &ast.BinaryExpr{X: copyExpr(ast.Unparen(lhs), pos), OpPos: pos, Op: opOfAssign(s.Tok), Y: y}
	}
	groups := p.groups(mine)
	if len(groups) == 1 && p.storable(lhs) {
		// The write goes into the store buffer (rt.RacySet).
		return p.racySet(lhs, value, groups[0], pos)
	}
	args := []ast.Expr{value}
	for _, g := range groups {
		args = append(args, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(g)})
	}
	call := p.r.rtCall("RacyStore", pos, args...)
	p.r.skip[call] = true
	p.r.skip[call.Fun] = true
	as := &ast.AssignStmt{Lhs: []ast.Expr{lhs}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{call}}
	p.r.skip[as] = true
	return as
}

// opOfAssign is the binary operator of an assignment operator (+= is +).
func opOfAssign(tok token.Token) token.Token {
	switch tok {
	case token.ADD_ASSIGN:
		return token.ADD
	case token.SUB_ASSIGN:
		return token.SUB
	case token.MUL_ASSIGN:
		return token.MUL
	case token.QUO_ASSIGN:
		return token.QUO
	case token.REM_ASSIGN:
		return token.REM
	case token.AND_ASSIGN:
		return token.AND
	case token.OR_ASSIGN:
		return token.OR
	case token.XOR_ASSIGN:
		return token.XOR
	case token.SHL_ASSIGN:
		return token.SHL
	case token.SHR_ASSIGN:
		return token.SHR
	case token.AND_NOT_ASSIGN:
		return token.AND_NOT
	}
	panic("opOfAssign: " + tok.String())
}

// groups are the groups of the racy statements on lines, sorted.
func (p *racyPass) groups(lines []int) []string {
	seen := map[string]bool{}
	var groups []string
	for _, l := range lines {
		for _, st := range p.lines[l] {
			if !seen[st.Group] {
				seen[st.Group] = true
				groups = append(groups, st.Group)
			}
		}
	}
	sort.Strings(groups)
	return groups
}

// captures reports whether s, whose own lines mine are racy, is a plain
// assignment whose write rt.RacySet captures, address and value, so that
// it goes into the goroutine's store buffer (x86-TSO, storebuf.go in the
// engine): x = v with x a variable, a path of fields or *p of a plain type
// (storable), v of x's type (or an untyped constant or nil) and evaluated
// with no other scheduling point (simple), on lines of one group that
// write. The other racy writes (several variables, a map entry, a slice
// element, a call on the right) stay writes to memory at their point.
func (p *racyPass) captures(s ast.Stmt, mine []int) bool {
	a, ok := s.(*ast.AssignStmt)
	if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return false
	}
	write := false
	for _, l := range mine {
		for _, st := range p.lines[l] {
			write = write || st.Write
		}
	}
	lhs, rhs := a.Lhs[0], a.Rhs[0]
	if !write || len(p.groups(mine)) != 1 || p.isMap(lhs) || !p.mapName(lhs) || !p.simple(rhs) || !p.storable(lhs) {
		return false
	}
	lt, rt := p.r.typeOf(lhs), p.r.typeOf(rhs)
	if lt == nil || rt == nil {
		return false
	}
	if b, ok := rt.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return true
	}
	return types.Identical(lt, rt)
}

// storable reports whether x, a variable or a path of fields, has a type
// that rt.RacySet may store: no type of package sync or sync/atomic (the
// rest of the rewrite gives them a meaning of their own) inside.
func (p *racyPass) storable(x ast.Expr) bool {
	t := p.r.typeOf(x)
	return t != nil && plainType(t, map[types.Type]bool{})
}

func plainType(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if n, ok := t.(*types.Named); ok {
		if pkg := n.Obj().Pkg(); pkg != nil && (pkg.Path() == "sync" || pkg.Path() == "sync/atomic") {
			return false
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if !plainType(u.Field(i).Type(), seen) {
				return false
			}
		}
	case *types.Array:
		return plainType(u.Elem(), seen)
	case *types.TypeParam:
		return false
	}
	return true
}

// readsMemory reports whether evaluating e reads a variable (not only
// constants).
func (p *racyPass) readsMemory(e ast.Expr) bool {
	reads := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if _, ok := p.r.info.Uses[n].(*types.Var); ok {
				reads = true
			}
		case *ast.StarExpr, *ast.IndexExpr:
			reads = true
		}
		return !reads
	})
	return reads
}

// racySet is the statement rt.RacySet(&lhs, value, "group"), at pos.
func (p *racyPass) racySet(lhs, value ast.Expr, group string, pos token.Pos) ast.Stmt {
	addr := &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: lhs}
	call := p.r.rtCall("RacySet", pos, addr, value, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(group)})
	st := &ast.ExprStmt{X: call}
	p.r.skip[st] = true
	p.r.skip[call] = true
	p.r.skip[call.Fun] = true
	p.r.skip[addr] = true
	return st
}

// racyPrints are the printing functions and methods of packages testing
// and log: they format with fmt in code that is not rewritten, which
// iterates the maps of their arguments.
var racyPrints = map[string]bool{
	"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Skip": true, "Skipf": true,
	"Print": true, "Printf": true, "Println": true, "Panic": true, "Panicf": true, "Panicln": true, "Fatalln": true,
}

// printArgs marks, in a call of testing's or log's printing functions
// (racyPrints) on a racy line, the arguments that may hold a map for
// rt.RacyArg, which copies the map as fmt's iteration over it would go
// (rt/racyprint.go). A call with a format that is not a constant, or that
// prints with %p (the map's address), or with a spread argument, is left
// alone.
func (p *racyPass) printArgs(call *ast.CallExpr, fn *types.Func) {
	if path := fn.Pkg().Path(); path != "testing" && path != "log" || !racyPrints[fn.Name()] || call.Ellipsis.IsValid() {
		return
	}
	if fn.Pkg().Path() == "testing" && (fn.Name() == "Print" || fn.Name() == "Printf" || fn.Name() == "Println") {
		return
	}
	racy := false
	for l := p.line(call.Pos()); l <= p.line(call.End()); l++ {
		racy = racy || len(p.lines[l]) > 0
	}
	if !racy {
		return
	}
	args := call.Args
	if strings.HasSuffix(fn.Name(), "f") {
		if len(args) == 0 {
			return
		}
		tv, ok := p.r.info.Types[args[0]]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String || strings.Contains(constant.StringVal(tv.Value), "%p") {
			return
		}
		args = args[1:]
	}
	for _, a := range args {
		if mayHoldMap(p.r.typeOf(a), 0) {
			p.r.racyArgs[a] = true
		}
	}
}

// mayHoldMap reports whether a value of type t may hold a map that fmt
// iterates: a map, an interface, a struct with such a field, a pointer to
// such a struct (rt's racyCopy looks at the dynamic value).
func mayHoldMap(t types.Type, depth int) bool {
	if t == nil || depth > 8 {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Map, *types.Interface:
		return true
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if mayHoldMap(u.Field(i).Type(), depth+1) {
				return true
			}
		}
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Struct); ok {
			return mayHoldMap(u.Elem(), depth+1)
		}
	}
	return false
}
