package rt_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"heddle.dev/rt"
)

// The cost of the file steps' checks on writes that are not to files:
// fmt.Fprintf to a bytes.Buffer and a strings.Builder, directly and
// through rt.Fprintf, and a Write through an io.Writer with and without
// rt.FileI (outside a run, as in a run the checks are the same: a type
// assertion).
func BenchmarkFprintfBuffer(b *testing.B) {
	var buf bytes.Buffer
	var sb strings.Builder
	b.Run("fmt/buffer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf.Reset()
			fmt.Fprintf(&buf, "%d %s", i, "x")
		}
	})
	b.Run("rt/buffer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf.Reset()
			rt.Fprintf(&buf, "%d %s", i, "x")
		}
	})
	b.Run("fmt/builder", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sb.Reset()
			fmt.Fprintf(&sb, "%d %s", i, "x")
		}
	})
	b.Run("rt/builder", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sb.Reset()
			rt.Fprintf(&sb, "%d %s", i, "x")
		}
	})
	var w io.Writer = &buf
	p := []byte("x")
	b.Run("write/plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf.Reset()
			w.Write(p)
		}
	})
	b.Run("write/FileI", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf.Reset()
			rt.FileI(w).Write(p)
		}
	})
}
