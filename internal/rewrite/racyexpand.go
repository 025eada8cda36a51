package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
)

// A race report names two statements, and the detector reports a race on
// an address only when two accesses meet in its history: in an
// exploration, whose runs are all in one process, a statement that races
// only with accesses already reported was never named (conformance's
// TestRacy0017: of a test goroutine's z = 10; z++, only the first line was
// ever reported, so the increment stayed atomic and no exhaustive search
// could show the value native Go shows). So the racy statements grow to
// every statement that accesses a shared variable a racy statement
// accesses: a package-level variable, a field (of any value of its struct
// type), or a local variable that a function literal shares (declared
// outside the literal that accesses it). They join the group of that
// statement; groups that come to share a statement merge.

// racyFile is one rewritten file, for racyExpand.
type racyFile struct {
	path string
	file *ast.File
	info *types.Info
}

// sharedAccess is an access to a shared variable on one line.
type sharedAccess struct {
	line  int
	write bool
	v     string // the variable: the position of its declaration
}

// sharedAccesses lists the accesses to shared variables in f.
func sharedAccesses(fset *token.FileSet, f racyFile) []sharedAccess {
	var out []sharedAccess
	var lits []*ast.FuncLit // the function literals around the node
	written := map[*ast.Ident]bool{}
	inFunc := false // in a function body, or a literal of a package-level initializer
	type use struct {
		id  *ast.Ident
		v   *types.Var
		cap bool // in a function literal that does not declare v
	}
	var uses []use
	record := func(id *ast.Ident) {
		v, ok := f.info.Uses[id].(*types.Var)
		if !ok || !inFunc && len(lits) == 0 {
			return
		}
		uses = append(uses, use{id, v, captured(v, lits)})
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// x.f accesses the field f; x is only read to reach it (and
			// x.M() reads x to call M): x itself counts only where it is
			// assigned.
			record(n.Sel)
			if _, ok := n.X.(*ast.Ident); !ok {
				ast.Inspect(n.X, visit)
			}
			return false
		case *ast.FuncLit:
			lits = append(lits, n)
			ast.Inspect(n.Body, visit)
			lits = lits[:len(lits)-1]
			return false
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					markWritten(l, written)
				}
			}
		case *ast.IncDecStmt:
			markWritten(n.X, written)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				markWritten(n.X, written) // its address escapes: any access
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				markWritten(n.Key, written)
				markWritten(n.Value, written)
			}
		case *ast.Ident:
			record(n)
		}
		return true
	}
	for _, d := range f.file.Decls {
		_, inFunc = d.(*ast.FuncDecl)
		ast.Inspect(d, visit)
	}
	// A local variable is shared if a function literal captures it: then
	// its accesses outside the literal count too.
	capturedVars := map[*types.Var]bool{}
	for _, u := range uses {
		if u.cap {
			capturedVars[u.v] = true
		}
	}
	for _, u := range uses {
		v := u.v
		if v.IsField() || v.Pkg() != nil && v.Parent() == v.Pkg().Scope() || capturedVars[v] {
			out = append(out, sharedAccess{line: fset.Position(u.id.Pos()).Line, write: written[u.id], v: fset.Position(v.Pos()).String()})
		}
	}
	return out
}

// markWritten marks the variable an assignment's left-hand side writes:
// x, or the field of x.f, or (for x[i] and *p) the variable read to reach
// the element, which is as good a name as any for it.
func markWritten(e ast.Expr, written map[*ast.Ident]bool) {
	for e != nil {
		switch x := e.(type) {
		case *ast.Ident:
			written[x] = true
			return
		case *ast.SelectorExpr:
			written[x.Sel] = true
			return
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return
		}
	}
}

// captured reports whether v, a local variable, is accessed from a
// function literal that does not declare it: the innermost of lits.
func captured(v *types.Var, lits []*ast.FuncLit) bool {
	if v.IsField() || len(lits) == 0 || v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		return false
	}
	in := lits[len(lits)-1]
	return v.Pos() < in.Pos() || v.Pos() >= in.End()
}

// racyExpand returns racy and, in the same groups, the statements of files
// that access a shared variable a statement of racy accesses.
func racyExpand(fset *token.FileSet, files []racyFile, racy []RacyStmt) []RacyStmt {
	if len(racy) == 0 {
		return racy
	}
	type key struct {
		file string
		line int
	}
	accesses := map[string][]sharedAccess{}
	for _, f := range files {
		accesses[f.path] = sharedAccesses(fset, f)
	}
	// Union-find over group names.
	parent := map[string]string{}
	var find func(g string) string
	find = func(g string) string {
		p, ok := parent[g]
		if !ok || p == g {
			parent[g] = g
			return g
		}
		r := find(p)
		parent[g] = r
		return r
	}
	union := func(a, b string) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if rb < ra {
				ra, rb = rb, ra
			}
			parent[rb] = ra
		}
	}
	stmts := map[key]*RacyStmt{}
	varGroup := map[string]string{}
	for _, s := range racy {
		s := s
		stmts[key{s.File, s.Line}] = &s
		find(s.Group)
		for _, a := range accesses[s.File] {
			if a.line != s.Line {
				continue
			}
			if g, ok := varGroup[a.v]; ok {
				union(g, s.Group)
			} else {
				varGroup[a.v] = s.Group
			}
		}
	}
	for _, f := range files {
		for _, a := range accesses[f.path] {
			g, ok := varGroup[a.v]
			if !ok {
				continue
			}
			k := key{f.path, a.line}
			if s, ok := stmts[k]; ok {
				s.Write = s.Write || a.write
				union(s.Group, g)
				continue
			}
			stmts[k] = &RacyStmt{File: f.path, Line: a.line, Write: a.write, Group: g}
		}
	}
	out := make([]RacyStmt, 0, len(stmts))
	for _, s := range stmts {
		s.Group = find(s.Group)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}
