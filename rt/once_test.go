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
