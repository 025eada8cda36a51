package rt

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unsafe"

	"heddle.dev/internal/engine"
)

// fmt's printing and encoding/json's Marshal iterate the maps of their
// arguments (fmt sorts a map's entries after a MapRange over it: package
// internal/fmtsort) in standard-library code the rewriter does not see:
// on a line that heddle test -racy found racy, a call of one of them is a
// call of its wrapper here, which first copies each map the call would
// iterate (a map argument, a map in a struct argument or in the struct a
// pointer argument points to) as a range over it goes (rangeMap: the
// runtime's iteration check before the first entry and after each, each
// entry read at its own step), and then prints or encodes the copies: a
// write of another goroutine may land between two entries, or overlap the
// iteration ("concurrent map iteration and map write"), as natively.
// An argument with a String, Error, Format or MarshalJSON method of its
// own, or a format with %p (which prints the map's address), is left
// as it is.

// racyArgs returns a with the maps the call iterates copied, during a run.
func racyArgs(format string, a []any) []any {
	x := engine.Current()
	if x == nil || strings.Contains(format, "%p") {
		return a
	}
	var out []any
	for i, v := range a {
		c, ok := racyCopy(x, v, false)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), a...)
		}
		out[i] = c
	}
	if out == nil {
		return a
	}
	return out
}

// racyCopy returns a copy of v with its maps copied entry by entry, if v
// holds a map fmt (or, forJSON set, encoding/json: exported fields only)
// would iterate.
func racyCopy(x *engine.Exec, v any, forJSON bool) (any, bool) {
	switch v.(type) {
	case nil, fmt.Formatter, fmt.Stringer, error, json.Marshaler:
		return v, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Struct:
		if !hasMap(rv.Type(), 0) {
			return v, false
		}
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		copyMaps(x, c, 0, forJSON)
		return c.Interface(), true
	case reflect.Pointer:
		if rv.IsNil() || rv.Elem().Kind() != reflect.Struct || !hasMap(rv.Elem().Type(), 0) {
			return v, false
		}
		c := reflect.New(rv.Elem().Type())
		c.Elem().Set(rv.Elem())
		copyMaps(x, c.Elem(), 0, forJSON)
		return c.Interface(), true
	}
	return v, false
}

// maxDepth bounds the struct nesting copyMaps follows.
const maxDepth = 8

// hasMap reports whether a value of type t holds a map directly or in a
// struct field.
func hasMap(t reflect.Type, depth int) bool {
	switch t.Kind() {
	case reflect.Map:
		return true
	case reflect.Struct:
		if depth >= maxDepth {
			return false
		}
		for i := 0; i < t.NumField(); i++ {
			if hasMap(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// copyMaps replaces the maps of the addressable v by copies made as a
// range over each goes (forJSON: only in the fields encoding/json encodes).
func copyMaps(x *engine.Exec, v reflect.Value, depth int, forJSON bool) {
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return
		}
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem() // unexported fields too
		v.Set(rangeCopy(x, v, forJSON))
	case reflect.Struct:
		if depth >= maxDepth {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if forJSON && (!f.IsExported() && !f.Anonymous || f.Tag.Get("json") == "-") {
				continue
			}
			if hasMap(f.Type, depth+1) {
				copyMaps(x, v.Field(i), depth+1, forJSON)
			}
		}
	}
}

// rangeCopy copies the map m as a range over it visits it: the runtime's
// check before the first entry and after each, each entry read at its own
// step, and a key another goroutine stored since the last step ahead of
// the iteration (visited) or behind it, as the search chooses (natively
// either happens). encoding/json (forJSON) sizes its slice of entries by
// the map's length at the start: an entry more panics, as natively
// ("index out of range").
func rangeCopy(x *engine.Exec, m reflect.Value, forJSON bool) reflect.Value {
	p := m.UnsafePointer()
	if m.Len() == 0 {
		return reflect.MakeMap(m.Type()) // the runtime's iterator checks no empty map
	}
	x.Map(p, engine.MapIter)
	n0 := m.Len()
	c := reflect.MakeMapWithSize(m.Type(), n0)
	seen := make(map[any]bool, n0)
	list := func() []any {
		var fresh []any
		for _, k := range m.MapKeys() {
			if ki := k.Interface(); !seen[ki] {
				seen[ki] = true
				fresh = append(fresh, ki)
			}
		}
		return shuffledKeys(x, fresh)
	}
	keys := list()
	listed := x.Writes(p)
	var ahead rangeAhead
	visited := 0
	for i := 0; i < len(keys); i++ {
		kv := reflect.New(m.Type().Key()).Elem()
		if keys[i] != nil {
			kv.Set(reflect.ValueOf(keys[i]))
		}
		if val := m.MapIndex(kv); val.IsValid() { // else deleted meanwhile
			if forJSON {
				_ = make([]struct{}, n0)[visited]
			}
			c.SetMapIndex(kv, val)
			visited++
		}
		x.Map(p, engine.MapIter)
		if w := x.Writes(p); w != listed {
			listed = w
			for _, k := range list() {
				if ahead.choose() {
					keys = append(keys, k)
				}
			}
		}
	}
	return c
}

// RacySprint is fmt.Sprint on a racy line.
func RacySprint(a ...any) string { return fmt.Sprint(racyArgs("", a)...) }

// RacySprintf is fmt.Sprintf on a racy line.
func RacySprintf(format string, a ...any) string {
	return fmt.Sprintf(format, racyArgs(format, a)...)
}

// RacySprintln is fmt.Sprintln on a racy line.
func RacySprintln(a ...any) string { return fmt.Sprintln(racyArgs("", a)...) }

// RacyErrorf is fmt.Errorf on a racy line.
func RacyErrorf(format string, a ...any) error {
	return fmt.Errorf(format, racyArgs(format, a)...)
}

// RacyPrint is fmt.Print on a racy line (Print).
func RacyPrint(a ...any) (int, error) { return Print(racyArgs("", a)...) }

// RacyPrintf is fmt.Printf on a racy line (Printf).
func RacyPrintf(format string, a ...any) (int, error) {
	return Printf(format, racyArgs(format, a)...)
}

// RacyPrintln is fmt.Println on a racy line (Println).
func RacyPrintln(a ...any) (int, error) { return Println(racyArgs("", a)...) }

// RacyFprint is fmt.Fprint on a racy line (Fprint).
func RacyFprint(w io.Writer, a ...any) (int, error) { return Fprint(w, racyArgs("", a)...) }

// RacyFprintf is fmt.Fprintf on a racy line (Fprintf).
func RacyFprintf(w io.Writer, format string, a ...any) (int, error) {
	return Fprintf(w, format, racyArgs(format, a)...)
}

// RacyFprintln is fmt.Fprintln on a racy line (Fprintln).
func RacyFprintln(w io.Writer, a ...any) (int, error) { return Fprintln(w, racyArgs("", a)...) }

// RacyJSONMarshal is encoding/json.Marshal on a racy line.
func RacyJSONMarshal(v any) ([]byte, error) {
	if x := engine.Current(); x != nil {
		if c, ok := racyCopy(x, v, true); ok {
			v = c
		}
	}
	return json.Marshal(v)
}

// RacyJSONMarshalIndent is encoding/json.MarshalIndent on a racy line.
func RacyJSONMarshalIndent(v any, prefix, indent string) ([]byte, error) {
	if x := engine.Current(); x != nil {
		if c, ok := racyCopy(x, v, true); ok {
			v = c
		}
	}
	return json.MarshalIndent(v, prefix, indent)
}
