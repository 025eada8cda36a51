package engine

import "unsafe"

// ObjAux returns the value package rt keeps beside the object at p in the
// run (SetObjAux), or nil: state of a modelled object that is not the
// engine's (the Range walks under way of a sync.Map).
//
//go:norace
func (e *Exec) ObjAux(p unsafe.Pointer) any {
	if o := e.objs.get(p); o != nil {
		return o.aux
	}
	return nil
}

// SetObjAux sets the value ObjAux returns for the object at p.
//
//go:norace
func (e *Exec) SetObjAux(p unsafe.Pointer, v any) {
	e.objs.obtain(p).aux = v
}
