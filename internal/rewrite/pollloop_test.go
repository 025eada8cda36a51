package rewrite

import (
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// rewriteSrc type-checks src as the file p.go of a package in a
// temporary directory, rewrites it, and returns the file's name and the
// rewritten file.
func rewriteSrc(t *testing.T, src string) (name string, out []byte) {
	t.Helper()
	fset := token.NewFileSet()
	name = filepath.Join(t.TempDir(), "p.go")
	file, info, pkg, err := checkFile(fset, name, []byte(src))
	if err != nil {
		t.Fatalf("input does not type-check: %v\n%s", err, src)
	}
	out, err = File(fset, file, info, pkg, info.FileVersions[file])
	if err != nil {
		t.Fatal(err)
	}
	return name, out
}

// TestPollLoopMarking: which loops the rewriter marks as poll loops
// (pollloop.go): only those whose every path back to the head writes
// nothing that outlives the iteration. A marked loop's operations become
// rt.PollR, rt.PollGosched and rt.PollSelect.
func TestPollLoopMarking(t *testing.T) {
	cases := []struct {
		name, body string
		marked     bool
	}{
		{"gosched", `for !f.Load() { runtime.Gosched() }`, true},
		{"funcLoad", `for atomic.LoadInt32(&x) == 0 {}`, true},
		{"ifReturn", `for { if f.Load() { return }; runtime.Gosched() }`, true},
		{"local", `for { v := f.Load(); if v { break }; runtime.Gosched() }`, true},
		{"exitWrites", `for { if f.Load() { n++; return }; runtime.Gosched() }`, true},
		{"selectLeaves", `for { select { case <-ch: return; default: } }`, true},
		{"labeledBreak", `L: for { select { case v := <-ch: n += v; break L; default: } }`, true},
		{"elseIf", `for { if f.Load() { return } else if atomic.LoadInt32(&x) > 1 { return } else { runtime.Gosched() } }`, true},
		{"counter", `for i := 0; !f.Load(); i++ {}`, false},
		{"write", `for !f.Load() { n++ }`, false},
		{"localWrite", `for !f.Load() { v := 1; v++; _ = v }`, false},
		{"call", `for !f.Load() { g() }`, false},
		{"sleep", `for !f.Load() { time.Sleep(1) }`, false},
		{"add", `for atomic.AddInt32(&x, 0) == 0 {}`, false},
		{"recv", `for { <-ch; if f.Load() { return } }`, false},
		{"caseGoesOn", `for { select { case v := <-ch: n += v; default: }; if f.Load() { return } }`, false},
		{"caseBreaksSelect", `for { select { case <-ch: n++; break; default: }; if f.Load() { return } }`, false},
		{"caseContinues", `L: for { select { case <-ch: n++; continue L; default: }; if f.Load() { return } }`, false},
		{"exitContinues", `for { if f.Load() { n++; if n > 1 { continue }; return }; runtime.Gosched() }`, false},
		{"send", `for { select { case ch <- 1: return; default: runtime.Gosched() } }`, false},
		{"goto", `for { if f.Load() { goto end } }; end:`, false},
		{"assign", `for !f.Load() { n = 1 }`, false},
		{"noDefault", `for { select { case <-ch: return } }`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `package p

import (
	"runtime"
	"sync/atomic"
	"time"
)

var _ = time.Sleep
var _ = runtime.Gosched
var _ = atomic.LoadInt32

func g() {}

func loop(f *atomic.Bool, ch chan int) (n int) {
	var x int32
	` + c.body + `
	return n + int(x)
}
`
			name, out := rewriteSrc(t, src)
			got := string(out)
			marked := strings.Contains(got, "heddlert.Poll")
			if marked != c.marked {
				t.Errorf("marked %v, want %v:\n%s", marked, c.marked, got)
			}
			if _, _, _, err := checkFile(token.NewFileSet(), name, out); err != nil {
				t.Errorf("rewritten code does not type-check: %v\n%s", err, got)
			}
		})
	}
}
