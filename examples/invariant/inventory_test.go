package invariant

import (
	"sync"
	"testing"
)

type shop interface {
	Reserve(item string, n int) bool
	Count(item string) (inStock, sold int)
}

// lastItem: two customers order the last lamp at once.
func lastItem(t *testing.T, s shop) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Reserve("lamp", 1)
		}()
	}
	wg.Wait()
	inStock, sold := s.Count("lamp")
	if inStock+sold != 1 {
		t.Errorf("%d lamps in stock and %d sold, but the shop had 1", inStock, sold)
	}
}

// TestLastItemOversold: both customers get the one lamp.
func TestLastItemOversold(t *testing.T) {
	lastItem(t, NewInventory(map[string]int{"lamp": 1}))
}

func TestLastItemFixed(t *testing.T) {
	lastItem(t, NewFixedInventory(map[string]int{"lamp": 1}))
}
