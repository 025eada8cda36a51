package rt

import (
	"sync"
	"testing"
)

// TestOnceLayout guards onceDone's reading of sync.Once's done flag.
func TestOnceLayout(t *testing.T) {
	var o sync.Once
	if onceDone(&o) {
		t.Fatal("a new Once reads as done")
	}
	o.Do(func() {})
	if !onceDone(&o) {
		t.Fatal("a used Once reads as not done: sync.Once's layout changed")
	}
}

// TestNativeSelectNilInterface: outside an exploration, a select receives
// a nil interface value (a nil error) like the statement it replaces.
func TestNativeSelectNilInterface(t *testing.T) {
	ch := make(chan error, 1)
	ch <- nil
	c := RecvCase(ch)
	if Select(false, c, RecvCase(make(chan error))) != 0 || c.V != nil || !c.OK {
		t.Fatalf("got %v, %v", c.V, c.OK)
	}
}
