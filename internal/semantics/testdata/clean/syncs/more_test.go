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
