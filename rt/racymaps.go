package rt

import (
	"maps"

	"heddle.dev/internal/engine"
)

// The functions of package maps run native map code that the rewriter
// does not see: on a line that heddle test -racy found racy, a call of one
// of them is a call of its wrapper here (same type parameters, same
// signature), which models the map accesses it makes as the Go runtime
// checks them (MapRead, MapIter, MapWriteBegin/End; see Exec.Map in
// package engine). A function that runs no code of the caller's (Copy,
// Clone, Equal) is one access of each map at its start, and a write lasts
// through the whole call: no synchronization falls inside the window. A
// function that calls the caller's code between the steps of its
// iteration (EqualFunc, DeleteFunc, the iterators of racymaps_iter.go)
// iterates as a rewritten range does: the keys in the order the run draws
// (MapKeys), the runtime's check before the first entry and after each.

// rangeMap calls f with each entry of m, in the order a rewritten range
// visits them (MapKeys, skipping keys deleted meanwhile), with the check
// of the runtime's iteration step (MapIter) before the first entry and
// after each, until f returns false.
func rangeMap[M ~map[K]V, K comparable, V any](m M, f func(K, V) bool) {
	MapIter(m)
	for _, k := range MapKeys(m) {
		v, ok := m[k]
		if !ok {
			continue
		}
		if !f(k, v) {
			return
		}
		MapIter(m)
	}
}

// MapsCopy is maps.Copy on a racy line: it iterates src, and writes dst
// through the whole call if src has an entry to copy.
func MapsCopy[M1 ~map[K]V, M2 ~map[K]V, K comparable, V any](dst M1, src M2) {
	MapIter(src)
	if len(src) == 0 {
		return
	}
	MapWriteBegin(dst)
	maps.Copy(dst, src)
	MapWriteEnd(dst)
}

// MapsClone is maps.Clone on a racy line: the runtime checks the map once,
// at the start of the clone ("concurrent map clone and map write").
func MapsClone[M ~map[K]V, K comparable, V any](m M) M {
	mapOp(m, engine.MapClone, nil)
	return MapsCloneSeen(m)
}

// MapsCloneSeen is maps.Clone elsewhere (the rewriter's renamed): the
// runtime's clone of a map (runtime.mapclone) is not instrumented for the
// race detector, which then never sees it race with a write, and heddle
// test -racy would never make the call a scheduling point. Under -race it
// reads the map as a range does, which the detector sees; otherwise it
// is maps.Clone.
func MapsCloneSeen[M ~map[K]V, K comparable, V any](m M) M {
	if engine.RaceEnabled {
		for range m {
			break
		}
	}
	return maps.Clone(m)
}

// MapsEqual is maps.Equal on a racy line: maps of different lengths are
// not iterated; others are, m1 ranged over and m2 looked up.
func MapsEqual[M1, M2 ~map[K]V, K, V comparable](m1 M1, m2 M2) bool {
	if len(m1) != len(m2) {
		return false
	}
	MapIter(m1)
	MapRead(m2)
	return maps.Equal(m1, m2)
}

// MapsEqualFunc is maps.EqualFunc on a racy line: eq is the caller's code,
// so each step of the iteration of m1 is checked, and each lookup in m2.
func MapsEqualFunc[M1 ~map[K]V1, M2 ~map[K]V2, K comparable, V1, V2 any](m1 M1, m2 M2, eq func(V1, V2) bool) bool {
	if len(m1) != len(m2) {
		return false
	}
	equal := true
	rangeMap(m1, func(k K, v1 V1) bool {
		MapRead(m2)
		v2, ok := m2[k]
		equal = ok && eq(v1, v2)
		return equal
	})
	return equal
}

// MapsDeleteFunc is maps.DeleteFunc on a racy line: an iteration of m
// (del is the caller's code), each delete a write.
func MapsDeleteFunc[M ~map[K]V, K comparable, V any](m M, del func(K, V) bool) {
	rangeMap(m, func(k K, v V) bool {
		if del(k, v) {
			MapWriteBegin(m)
			delete(m, k)
			MapWriteEnd(m)
		}
		return true
	})
}
