//go:build go1.23

package rt

import "iter"

// MapsAll is maps.All on a racy line: the iteration happens while the
// caller's loop runs, one step per entry (rangeMap).
func MapsAll[Map ~map[K]V, K comparable, V any](m Map) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		rangeMap(m, yield)
	}
}

// MapsKeys is maps.Keys on a racy line (MapsAll).
func MapsKeys[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[K] {
	return func(yield func(K) bool) {
		rangeMap(m, func(k K, _ V) bool { return yield(k) })
	}
}

// MapsValues is maps.Values on a racy line (MapsAll).
func MapsValues[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[V] {
	return func(yield func(V) bool) {
		rangeMap(m, func(_ K, v V) bool { return yield(v) })
	}
}

// MapsInsert is maps.Insert on a racy line: each entry seq yields is a
// write of m (seq is the caller's code, which runs between them).
func MapsInsert[Map ~map[K]V, K comparable, V any](m Map, seq iter.Seq2[K, V]) {
	seq(func(k K, v V) bool {
		MapWriteBegin(m)
		m[k] = v
		MapWriteEnd(m)
		return true
	})
}
