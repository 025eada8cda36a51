package syncs

import (
	"sync"
	"testing"
)

func TestSyncMapMore(t *testing.T) {
	var m sync.Map
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); m.Swap("a", 1) }()
	go func() { defer wg.Done(); m.CompareAndSwap("b", nil, 2); m.LoadAndDelete("c") }()
	wg.Wait()
	if _, ok := m.Load("a"); !ok {
		t.Fatal("Swap lost")
	}
	m.Clear()
	if _, ok := m.Load("a"); ok {
		t.Fatal("Clear kept a")
	}
}

func TestTestingFromGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	var tb testing.TB = t
	wg.Add(2)
	go func() { defer wg.Done(); t.Log("from a goroutine") }()
	go func() { defer wg.Done(); tb.Helper(); tb.Logf("through %s", "TB") }()
	wg.Wait()
}

type group struct {
	sync.WaitGroup
	sync.Once
	*sync.RWMutex
	n int
}

// A struct embedding a WaitGroup, a Once and a *RWMutex: promoted
// methods, called and used as values.
func TestEmbeddedWaitGroupOnceRW(t *testing.T) {
	g := &group{RWMutex: new(sync.RWMutex)}
	done := g.Done
	for i := 0; i < 3; i++ {
		g.Add(1)
		go func() {
			defer done()
			g.Do(func() { g.n = 10 })
			g.RLock()
			_ = g.n
			g.RUnlock()
		}()
	}
	g.Wait()
	g.Lock()
	g.n++
	g.Unlock()
	if g.n != 11 {
		t.Fatal(g.n)
	}
}

type door interface {
	Lock()
	Unlock()
}

type userDoor struct {
	mu     sync.Mutex
	opened int
}

func (d *userDoor) Lock()   { d.mu.Lock(); d.opened++ }
func (d *userDoor) Unlock() { d.mu.Unlock() }

// A user interface with Lock and Unlock, implemented by a user type.
func TestUserLockInterface(t *testing.T) {
	u := &userDoor{}
	var d door = u
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); d.Lock(); d.Unlock() }()
	}
	wg.Wait()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.opened != 2 {
		t.Fatal(u.opened)
	}
}
