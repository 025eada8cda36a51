package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// typeExpr spells t as a type expression valid in the rewritten file. It
// qualifies named types with the file's own import names, adding an import
// (under a fresh name) when the file does not import the package yet. It
// fails for types that cannot be named from here: unexported types of other
// packages, and types of a main package.
func (r *rewriter) typeExpr(t types.Type) (ast.Expr, error) {
	switch t := t.(type) {
	case *types.Alias:
		return r.typeExpr(types.Unalias(t))
	case *types.Basic:
		switch t.Kind() {
		case types.UnsafePointer:
			name, err := r.importName("unsafe")
			if err != nil {
				return nil, err
			}
			return &ast.SelectorExpr{X: ast.NewIdent(name), Sel: ast.NewIdent("Pointer")}, nil
		case types.UntypedBool:
			return ast.NewIdent("bool"), nil
		case types.UntypedInt:
			return ast.NewIdent("int"), nil
		case types.UntypedRune:
			return ast.NewIdent("rune"), nil
		case types.UntypedFloat:
			return ast.NewIdent("float64"), nil
		case types.UntypedComplex:
			return ast.NewIdent("complex128"), nil
		case types.UntypedString:
			return ast.NewIdent("string"), nil
		case types.UntypedNil, types.Invalid:
			return nil, fmt.Errorf("cannot spell type %s", t)
		}
		return ast.NewIdent(t.Name()), nil
	case *types.Named:
		obj := t.Obj()
		var x ast.Expr
		switch {
		case obj.Pkg() == nil: // error, comparable
			x = ast.NewIdent(obj.Name())
		case obj.Pkg() == r.pkg:
			if obj.Parent() != nil && obj.Parent() != r.pkg.Scope() {
				// A type declared inside a function: only nameable if in
				// scope, which we cannot check cheaply here.
				return nil, fmt.Errorf("cannot spell local type %s", obj.Name())
			}
			x = ast.NewIdent(obj.Name())
		default:
			if !obj.Exported() || obj.Pkg().Name() == "main" {
				return nil, fmt.Errorf("cannot spell type %s", t)
			}
			name, err := r.importName(obj.Pkg().Path())
			if err != nil {
				return nil, err
			}
			x = &ast.SelectorExpr{X: ast.NewIdent(name), Sel: ast.NewIdent(obj.Name())}
		}
		if targs := t.TypeArgs(); targs != nil && targs.Len() > 0 {
			var idx []ast.Expr
			for i := 0; i < targs.Len(); i++ {
				a, err := r.typeExpr(targs.At(i))
				if err != nil {
					return nil, err
				}
				idx = append(idx, a)
			}
			if len(idx) == 1 {
				return &ast.IndexExpr{X: x, Index: idx[0]}, nil
			}
			return &ast.IndexListExpr{X: x, Indices: idx}, nil
		}
		return x, nil
	case *types.TypeParam:
		return ast.NewIdent(t.Obj().Name()), nil
	case *types.Pointer:
		e, err := r.typeExpr(t.Elem())
		if err != nil {
			return nil, err
		}
		return &ast.StarExpr{X: e}, nil
	case *types.Slice:
		e, err := r.typeExpr(t.Elem())
		if err != nil {
			return nil, err
		}
		return &ast.ArrayType{Elt: e}, nil
	case *types.Array:
		e, err := r.typeExpr(t.Elem())
		if err != nil {
			return nil, err
		}
		return &ast.ArrayType{Len: &ast.BasicLit{Kind: token.INT, Value: strconv.FormatInt(t.Len(), 10)}, Elt: e}, nil
	case *types.Map:
		k, err := r.typeExpr(t.Key())
		if err != nil {
			return nil, err
		}
		v, err := r.typeExpr(t.Elem())
		if err != nil {
			return nil, err
		}
		return &ast.MapType{Key: k, Value: v}, nil
	case *types.Chan:
		e, err := r.typeExpr(t.Elem())
		if err != nil {
			return nil, err
		}
		dir := ast.SEND | ast.RECV
		switch t.Dir() {
		case types.SendOnly:
			dir = ast.SEND
		case types.RecvOnly:
			dir = ast.RECV
		}
		return &ast.ChanType{Dir: dir, Value: e}, nil
	case *types.Signature:
		return r.funcType(t, nil)
	case *types.Struct:
		fields := &ast.FieldList{}
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if !f.Exported() && f.Pkg() != r.pkg {
				return nil, fmt.Errorf("cannot spell struct with unexported field %s", f.Name())
			}
			ft, err := r.typeExpr(f.Type())
			if err != nil {
				return nil, err
			}
			field := &ast.Field{Type: ft}
			if !f.Embedded() {
				field.Names = []*ast.Ident{ast.NewIdent(f.Name())}
			}
			if tag := t.Tag(i); tag != "" {
				field.Tag = &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(tag)}
			}
			fields.List = append(fields.List, field)
		}
		return &ast.StructType{Fields: fields}, nil
	case *types.Interface:
		methods := &ast.FieldList{}
		for i := 0; i < t.NumEmbeddeds(); i++ {
			e, err := r.typeExpr(t.EmbeddedType(i))
			if err != nil {
				return nil, err
			}
			methods.List = append(methods.List, &ast.Field{Type: e})
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			m := t.ExplicitMethod(i)
			if !m.Exported() && m.Pkg() != r.pkg {
				return nil, fmt.Errorf("cannot spell interface with unexported method %s", m.Name())
			}
			ft, err := r.funcType(m.Signature(), nil)
			if err != nil {
				return nil, err
			}
			methods.List = append(methods.List, &ast.Field{Names: []*ast.Ident{ast.NewIdent(m.Name())}, Type: ft})
		}
		return &ast.InterfaceType{Methods: methods}, nil
	case *types.Union:
		return nil, fmt.Errorf("cannot spell union %s", t)
	}
	return nil, fmt.Errorf("cannot spell type %s", t)
}

// funcType spells sig. If names is non-nil, parameters are named names[i]
// (one per parameter), which lets the caller forward them.
func (r *rewriter) funcType(sig *types.Signature, names []string) (*ast.FuncType, error) {
	ft := &ast.FuncType{Params: &ast.FieldList{}}
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		pt := p.Type()
		var te ast.Expr
		var err error
		if sig.Variadic() && i == sig.Params().Len()-1 {
			s, ok := pt.(*types.Slice)
			if !ok { // append([]byte, string...) style; not for user signatures
				return nil, fmt.Errorf("cannot spell variadic %s", pt)
			}
			var elt ast.Expr
			elt, err = r.typeExpr(s.Elem())
			te = &ast.Ellipsis{Elt: elt}
		} else {
			te, err = r.typeExpr(pt)
		}
		if err != nil {
			return nil, err
		}
		f := &ast.Field{Type: te}
		if names != nil {
			f.Names = []*ast.Ident{ast.NewIdent(names[i])}
		}
		ft.Params.List = append(ft.Params.List, f)
	}
	if sig.Results().Len() > 0 {
		ft.Results = &ast.FieldList{}
		for i := 0; i < sig.Results().Len(); i++ {
			te, err := r.typeExpr(sig.Results().At(i).Type())
			if err != nil {
				return nil, err
			}
			ft.Results.List = append(ft.Results.List, &ast.Field{Type: te})
		}
	}
	return ft, nil
}

// importName returns the name under which the file imports path, adding an
// import under a fresh name if it does not.
func (r *rewriter) importName(path string) (string, error) {
	if name, ok := r.imported[path]; ok {
		return name, nil
	}
	if name, ok := r.added[path]; ok {
		return name, nil
	}
	base := "heddle_" + sanitize(path)
	name := r.fresh(base)
	r.added[path] = name
	return name, nil
}

func sanitize(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
