package rt_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"heddle.dev/rt"
)

type ctxKey string

// A context's String (and so fmt.Sprint of it) is Go's, for every kind
// heddle models and for Go's contexts derived from them: it was
// "heddle.context" for all of them.
func TestContextString(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		bg := context.Background()
		c1, cancel1 := rt.WithCancel(bg)
		defer cancel1()
		c2, cancel2 := rt.WithCancelCause(context.TODO())
		defer cancel2(nil)
		// Go prints a key of a type other than string by its type.
		v := context.WithValue(c1, ctxKey("k"), "v")
		c3, cancel3 := rt.WithCancel(v)
		defer cancel3()
		d, cancel4 := rt.WithTimeout(bg, time.Second)
		defer cancel4()
		d2, cancel5 := rt.WithDeadline(d, rt.Now().Add(time.Hour)) // the parent's deadline is earlier
		defer cancel5()
		w := context.WithoutCancel(c2)
		return fmt.Sprint(c1) + "\n" + c2.(fmt.Stringer).String() + "\n" + fmt.Sprint(c3) + "\n" +
			fmt.Sprint(d) + "\n" + fmt.Sprint(d2) + "\n" + fmt.Sprint(w)
	})
	want := regexp.MustCompile(`^context\.Background\.WithCancel
context\.TODO\.WithCancel
context\.Background\.WithCancel\.WithValue\(rt_test\.ctxKey, v\)\.WithCancel
context\.Background\.WithDeadline\(\S+ \S+ \S+ \S+( m=\S+)? \[(1s|999\.\d+ms)\]\)
context\.Background\.WithDeadline\(.*\)\.WithCancel
context\.TODO\.WithCancel\.WithoutCancel$`)
	if len(outcomes) == 0 || len(bugs) > 0 {
		t.Fatalf("outcomes %q, bugs %v", keys(outcomes), bugs)
	}
	for out := range outcomes {
		if !want.MatchString(out) {
			t.Errorf("String of the contexts:\n%s\nwant Go's, matching\n%s", out, want)
		}
	}
}
