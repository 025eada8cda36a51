package iopipe

import (
	"bufio"
	"io"
	. "io"
)

// io.Pipe is replaced by heddle's model, and its types by the model's,
// wherever they are named: declarations, fields, conversions, method
// expressions, type arguments, and a dot import.

type conn struct {
	r *io.PipeReader
	*io.PipeWriter
}

func newConn() *conn {
	r, w := io.Pipe()
	return &conn{r: r, PipeWriter: w}
}

func lines(r *io.PipeReader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func generic[T any](x T) T { return x }

func uses() {
	var w *PipeWriter
	pr, pw := Pipe()
	w = pw
	write := (*io.PipeWriter).Write
	write(w, nil)
	_ = generic[*io.PipeReader](pr)
	f := io.Pipe
	_, _ = f()
	go w.Write([]byte("x"))
	var rc io.ReadCloser = pr
	_ = rc.(*io.PipeReader)
}
