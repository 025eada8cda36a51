package rt

import (
	"sync"
	"testing"
)

type embedsMutex struct {
	sync.Mutex
}

type embedsPtr struct{ *sync.RWMutex }

type ownMethods struct{ mu sync.Mutex }

func (o *ownMethods) Lock()   { o.mu.Lock() }
func (o *ownMethods) Unlock() { o.mu.Unlock() }

type embedsLocker struct{ sync.Locker }

type nested struct {
	_ int
	embedsMutex
}

type valueMethods struct{}

func (valueMethods) Lock()   {}
func (valueMethods) Unlock() {}

// TestResolveLocker: a Lock or Unlock promoted from an embedded field is
// followed to the sync mutex (or user method) it really calls.
func TestResolveLocker(t *testing.T) {
	em := &embedsMutex{}
	ep := embedsPtr{&sync.RWMutex{}}
	own := &ownMethods{}
	var mu sync.Mutex
	el := &embedsLocker{&mu}
	ne := &nested{}
	vm := &valueMethods{}
	for _, c := range []struct {
		name string
		l    sync.Locker
		want any
	}{
		{"mutex", &mu, &mu},
		{"embedded mutex", em, &em.Mutex},
		{"embedded *RWMutex", ep, ep.RWMutex},
		{"declared methods", own, own},
		{"embedded Locker", el, &mu},
		{"nested embedding", ne, &ne.embedsMutex.Mutex},
		{"value methods through a pointer", vm, vm},
	} {
		for _, m := range []string{"Lock", "Unlock"} {
			if got := resolveLocker(c.l, m); got != c.want {
				t.Errorf("%s: resolveLocker(%T, %s) = %T %p, want %T %p", c.name, c.l, m, got, got, c.want, c.want)
			}
		}
	}
	// A nil embedded Locker resolves to the value itself: calling it
	// panics natively, as in Go.
	nl := &embedsLocker{}
	if got := resolveLocker(nl, "Unlock"); got != nl {
		t.Errorf("nil embedded Locker: got %T", got)
	}
}
