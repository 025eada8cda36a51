package rewrite

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// planFuzz plans f.Fuzz(ff) on a *testing.F: go test, without -fuzz,
// calls ff with each entry of the seed corpus, which heddle explores as a
// test. A function literal
//
//	f.Fuzz(func(t *testing.T, data []byte) { body })
//
// becomes
//
//	f.Fuzz(func(t *testing.T, data []byte) { rt.FuzzEntry(t, func(t *testing.T) { body }, data) })
//
// (its arguments passed on, so that each run starts from the entry's
// values), and any other ff rt.Fuzz(f, ff), which wraps it by reflection.
// It reports whether call is such a call.
func (r *rewriter) planFuzz(call *ast.CallExpr, sel *ast.SelectorExpr) bool {
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || len(s.Index()) != 1 || len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || fn.Name() != "Fuzz" || !isTestingF(s.Recv()) {
		return false
	}
	if lit, ok := ast.Unparen(call.Args[0]).(*ast.FuncLit); ok {
		params := lit.Type.Params.List
		if len(params) == 0 || len(params[0].Names) > 1 || !isTestingT(r.typeOf(params[0].Type)) || lit.Type.Results != nil && len(lit.Type.Results.List) > 0 {
			return false // f.Fuzz refuses it
		}
		r.plans[lit] = func(c *astutil.Cursor) {
			lit := c.Node().(*ast.FuncLit)
			p := lit.Type.Params.List[0]
			pos := lit.Body.Lbrace
			outer, innerNames := r.splitTParam(p, pos)
			args := []ast.Expr{ident(outer, pos), &ast.FuncLit{
				Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{List: []*ast.Field{{Names: innerNames, Type: p.Type}}}},
				Body: lit.Body,
			}}
			for _, f := range lit.Type.Params.List[1:] {
				for _, n := range f.Names {
					if n.Name != "_" {
						args = append(args, ident(n.Name, pos))
					}
				}
			}
			call := r.rtCall("FuzzEntry", pos, args...)
			call.Rparen = lit.Body.Rbrace
			lit.Body = &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: call}}, Rbrace: lit.Body.Rbrace}
		}
		return true
	}
	r.plans[call] = func(c *astutil.Cursor) {
		call := c.Node().(*ast.CallExpr)
		sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		c.Replace(r.rtCall("Fuzz", call.Lparen, sel.X, call.Args[0]))
	}
	return true
}

// isTestingF reports whether t is *testing.F.
func isTestingF(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && namedIn(p.Elem(), "testing", "F")
}
