// Package invariant is a stock of items that orders reserve.
//
// Every access to the stock map holds the mutex, so the race detector is
// silent, yet Reserve is not atomic: it reads the stock in one critical
// section and writes "what it read minus n" in another. Two orders for the
// last item can both see it available and both get it: the shop sells
// more than it has. FixedInventory checks and updates under one lock.
package invariant

import "sync"

// Inventory counts the items in stock.
type Inventory struct {
	mu    sync.Mutex
	stock map[string]int
	sold  map[string]int
}

// NewInventory returns an inventory holding stock.
func NewInventory(stock map[string]int) *Inventory {
	inv := &Inventory{stock: map[string]int{}, sold: map[string]int{}}
	for k, v := range stock {
		inv.stock[k] = v
	}
	return inv
}

// Reserve takes n of item out of stock, and reports whether there were
// enough.
//
// Bug: the check and the update are separate critical sections.
func (inv *Inventory) Reserve(item string, n int) bool {
	inv.mu.Lock()
	avail := inv.stock[item]
	inv.mu.Unlock()
	if avail < n {
		return false
	}
	inv.mu.Lock()
	inv.stock[item] = avail - n
	inv.sold[item] += n
	inv.mu.Unlock()
	return true
}

// Count returns how many of item are in stock and how many were sold.
func (inv *Inventory) Count(item string) (inStock, sold int) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.stock[item], inv.sold[item]
}

// FixedInventory is Inventory with an atomic Reserve.
type FixedInventory struct{ Inventory }

// NewFixedInventory returns a FixedInventory holding stock.
func NewFixedInventory(stock map[string]int) *FixedInventory {
	inv := &FixedInventory{}
	inv.stock, inv.sold = map[string]int{}, map[string]int{}
	for k, v := range stock {
		inv.stock[k] = v
	}
	return inv
}

// Reserve takes n of item out of stock, and reports whether there were
// enough.
func (inv *FixedInventory) Reserve(item string, n int) bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.stock[item] < n {
		return false
	}
	inv.stock[item] -= n
	inv.sold[item] += n
	return true
}
