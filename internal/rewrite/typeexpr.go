package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
)

// typeExprAt spells t as a type expression valid at pos in the rewritten
// file, where a local variable may shadow a package or type name.
func (r *rewriter) typeExprAt(t types.Type, pos token.Pos) (ast.Expr, error) {
	saved := r.at
	r.at = pos
	defer func() { r.at = saved }()
	return r.typeExpr(t)
}

// funcTypeAt is funcType for a signature spelled at pos.
func (r *rewriter) funcTypeAt(sig *types.Signature, names []string, pos token.Pos) (*ast.FuncType, error) {
	saved := r.at
	r.at = pos
	defer func() { r.at = saved }()
	return r.funcType(sig, names)
}

// lookupAt returns the object name denotes at r.at, or ok=false if r.at is
// not known (then names are taken to mean what they mean at file level).
func (r *rewriter) lookupAt(name string) (obj types.Object, ok bool) {
	if r.pkg == nil || !r.at.IsValid() {
		return nil, false
	}
	s := r.pkg.Scope().Innermost(r.at)
	if s == nil {
		return nil, false
	}
	_, obj = s.LookupParent(name, r.at)
	return obj, true
}

// shadowed reports whether name, spelled at r.at, would not denote want.
func (r *rewriter) shadowed(name string, want types.Object) bool {
	obj, ok := r.lookupAt(name)
	return ok && obj != want
}

// fileAlias returns the name of a package-level alias of t, declared by the
// rewriter in this file under a name nothing can shadow, for a type whose
// own name is shadowed where it must be written.
func (r *rewriter) fileAlias(t types.Type, base string) (ast.Expr, error) {
	key := types.TypeString(t, nil)
	if name, ok := r.aliases[key]; ok {
		return ast.NewIdent(name), nil
	}
	saved := r.at
	r.at = token.NoPos // at file level, package names and types mean themselves
	te, err := r.typeExpr(t)
	r.at = saved
	if err != nil {
		return nil, err
	}
	// Another file of the package may declare an alias of the same type:
	// the file's name keeps the names apart.
	name := r.fresh("heddle_" + sanitize(base) + "_" + hashStrings(filepath.Base(r.filename))[:8])
	r.aliases[key] = name
	r.aliasDecls = append(r.aliasDecls, &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{
		&ast.TypeSpec{Name: ast.NewIdent(name), Assign: 1, Type: te}}})
	return ast.NewIdent(name), nil
}

// typeExpr spells t as a type expression valid in the rewritten file at
// r.at. It qualifies named types with the file's own import names, adding
// an import (under a fresh name) when the file does not import the package
// yet, or when a local name shadows the import at r.at; a type of the
// package or a predeclared type whose name is shadowed there is written
// through an alias declared at file level. It fails for types that cannot
// be named from here: unexported types of other packages, types of a main
// package, and local types not in scope.
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
		return r.universeType(t.Name())
	case *types.Named:
		obj := t.Obj()
		var x ast.Expr
		switch {
		case obj.Pkg() == nil: // error, comparable
			return r.universeType(obj.Name())
		case obj.Pkg() == r.pkg:
			if obj.Parent() != nil && obj.Parent() != r.pkg.Scope() {
				// A type declared inside a function: nameable where it
				// is in scope.
				if o, ok := r.lookupAt(obj.Name()); !ok || o != obj {
					return nil, fmt.Errorf("cannot spell local type %s", obj.Name())
				}
				x = ast.NewIdent(obj.Name())
				break
			}
			if r.shadowed(obj.Name(), obj) {
				return r.fileAlias(t, obj.Name())
			}
			x = ast.NewIdent(obj.Name())
		default:
			if name, ok := replacedType(obj); ok {
				x = r.rt(name, token.NoPos)
				break
			}
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
		if r.shadowed(t.Obj().Name(), t.Obj()) {
			return nil, fmt.Errorf("type parameter %s is shadowed", t.Obj().Name())
		}
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

// universeType spells a predeclared type, through a file-level alias if
// a local name shadows it at r.at.
func (r *rewriter) universeType(name string) (ast.Expr, error) {
	obj := types.Universe.Lookup(name)
	if obj != nil && r.shadowed(name, obj) {
		return r.fileAlias(obj.Type(), name)
	}
	return ast.NewIdent(name), nil
}

// importName returns the name under which the file imports path, adding an
// import under a fresh name if it does not, or if a local name shadows the
// file's own import name at r.at.
func (r *rewriter) importName(path string) (string, error) {
	if name, ok := r.imported[path]; ok {
		obj, known := r.lookupAt(name)
		if pn, isPkg := obj.(*types.PkgName); !known || isPkg && pn.Imported().Path() == path {
			return name, nil
		}
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
