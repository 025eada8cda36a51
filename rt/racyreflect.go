package rt

import (
	"reflect"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The map methods of package reflect run native map code the rewriter
// does not see: on a line that heddle test -racy found racy, a call of
// one is a call of its wrapper here, which takes the runtime's map check
// as a step first (as rt/racymaps.go does for package maps): a lookup is
// a read, SetMapIndex a write lasting through the call, MapKeys (no code
// of the caller's inside) one iteration check at its start, and each
// MapIter.Next the check of the iteration's next step.

// reflectMapOp takes op on the map v holds, if it is one, during a run.
func reflectMapOp(v reflect.Value, op engine.MapOp) {
	if v.Kind() != reflect.Map || v.IsNil() {
		return
	}
	if x := engine.Current(); x != nil {
		x.Map(v.UnsafePointer(), op)
	}
}

// ReflectMapIndex is v.MapIndex(key) on a racy line.
func ReflectMapIndex(v, key reflect.Value) reflect.Value {
	reflectMapOp(v, engine.MapRead)
	return v.MapIndex(key)
}

// ReflectMapKeys is v.MapKeys() on a racy line. An empty map is not
// iterated.
func ReflectMapKeys(v reflect.Value) []reflect.Value {
	if v.Kind() == reflect.Map && v.Len() > 0 {
		reflectMapOp(v, engine.MapIter)
	}
	return v.MapKeys()
}

// ReflectSetMapIndex is v.SetMapIndex(key, elem) on a racy line.
func ReflectSetMapIndex(v, key, elem reflect.Value) {
	reflectMapOp(v, engine.MapWriteBegin)
	v.SetMapIndex(key, elem)
	reflectMapOp(v, engine.MapWriteEnd)
}

// ReflectMapIterNext is it.Next() on a racy line: the iteration's step
// (the first Next starts it), checked as the runtime does unless the map
// is empty.
func ReflectMapIterNext(it *reflect.MapIter) bool {
	if it != nil {
		// reflect.MapIter's first field is the map's Value (reflect/map.go).
		if m := *(*reflect.Value)(unsafe.Pointer(it)); m.IsValid() && m.Kind() == reflect.Map && m.Len() > 0 {
			reflectMapOp(m, engine.MapIter)
		}
	}
	return it.Next()
}
