package strategy

import (
	"reflect"
	"testing"

	"heddle.dev/internal/engine"
)

// TestChoiceFieldsCopiesEveryField: choiceFields (resetRacing's copy of a
// choice, field by field) must copy every field of engine.Choice: a field
// added to Choice must be added to it.
func TestChoiceFieldsCopiesEveryField(t *testing.T) {
	var c engine.Choice
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			// The engine's own (spin): a strategy cannot set it, and
			// what choiceFields builds is for ChoicePartner, which
			// does not read it.
			continue
		}
		switch f.Kind() {
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("Choice.%s: kind %v not handled: teach this test and choiceFields about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	if got := choiceFields(&c); got != c {
		t.Errorf("choiceFields(%+v) = %+v", c, got)
	}
}
