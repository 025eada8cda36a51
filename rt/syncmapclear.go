//go:build go1.23

// The runtime bundle is compiled at go1.21 (its go.mod); sync.Map.Clear is
// go1.23's, and only code that calls it (at go1.23 or later) is rewritten
// to call SyncMapClear: the build constraint gives this file go1.23.

package rt

import (
	"sync"
	"unsafe"

	"heddle.dev/internal/engine"
)

// SyncMapClear replaces m.Clear(). Natively Clear swaps the hash-trie's
// root for an empty one (internal/sync's HashTrieMap.Clear): a Range that
// loaded the old root before goes on walking it, sees every entry it held
// and no write made after the Clear. During a run the Range walks under
// way on m keep reading the entries m has at the Clear.
func SyncMapClear(m *sync.Map) {
	x := engine.Current()
	if x == nil {
		m.Clear()
		return
	}
	p := unsafe.Pointer(m)
	x.Access(p, engine.OpMapWrite)
	if w, _ := x.ObjAux(p).(*syncMapWalks); w != nil {
		w.freeze(m)
	}
	m.Clear()
}
