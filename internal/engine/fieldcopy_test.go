package engine

import (
	"reflect"
	"testing"
	"unsafe"
)

// nonZeroChoice returns a Choice with every field set to a value that is
// not its zero value, whatever the fields are.
func nonZeroChoice(t *testing.T) Choice {
	t.Helper()
	var c Choice
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Uint8:
			// Unexported (Choice.spin, kind): set through its address.
			reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetUint(uint64(spinSure))
		case reflect.Int32:
			// Unexported (Choice.gi).
			reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetInt(7)
		default:
			t.Fatalf("Choice.%s: kind %v not handled: teach this test and appendChoice/addChoice/refresh about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	return c
}

// TestChoiceCopiesEveryField checks that the field-by-field copies of a
// Choice (appendChoice, refresh's) copy every field: a field added to
// Choice must be added to them.
func TestChoiceCopiesEveryField(t *testing.T) {
	c := nonZeroChoice(t)
	for _, cs := range [][]Choice{nil, make([]Choice, 0, 4), make([]Choice, 2, 4)} {
		got := appendChoice(cs, &c)
		if len(got) != len(cs)+1 || got[len(cs)] != c {
			t.Fatalf("appendChoice(len %d, cap %d) = %+v, want %+v last", len(cs), cap(cs), got, c)
		}
	}
	// Stale values in the array past len are overwritten.
	stale := []Choice{c, c}[:0]
	g := &G{Index: 3, op: Op{Kind: OpYield}}
	got := addChoice(stale, g, -1, false, false)
	if want := (Choice{G: g, Case: -1, spin: spinNo, kind: OpYield, gi: 4}); got[0] != want {
		t.Fatalf("addChoice over a stale slot = %+v, want %+v", got[0], want)
	}
	// Op is stored field by field in yield, and Choice in addChoice: they
	// have the fields these copies know of.
	for _, tc := range []struct {
		typ  reflect.Type
		want int
	}{{reflect.TypeOf(Op{}), 7}, {reflect.TypeOf(Choice{}), 9}} {
		if n := tc.typ.NumField(); n != tc.want {
			t.Errorf("%v has %d fields, %d when its field-by-field copies were written (yield, appendChoice, addChoice, refresh): add the new ones there", tc.typ, n, tc.want)
		}
	}
}

// TestSameChoicesIgnoresKind: the enabled log's comparison (sameChoices)
// takes a goroutine's choice with another kept operation kind for the
// same choice, so that a recorded run does not copy a chunk of the log at
// every step of a goroutine whose next operation is enabled too; any
// other field still makes them differ.
func TestSameChoicesIgnoresKind(t *testing.T) {
	g := &G{Index: 3}
	a := []Choice{{G: g, Case: -1, spin: spinNo, kind: OpLock, gi: 4}}
	b := []Choice{{G: g, Case: -1, spin: spinNo, kind: OpUnlock, gi: 4}}
	if !sameChoices(a, b) {
		t.Fatal("choices differing only in their kept kind are not the same")
	}
	b[0].Case = 0
	if sameChoices(a, b) {
		t.Fatal("choices with different cases are the same")
	}
}
