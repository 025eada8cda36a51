package rt_test

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// twoWriters runs two goroutines, each writing its string to a file
// through write, and returns what the file holds once both are done.
func twoWriters(t *testing.T, write func(f *os.File, s string)) string {
	t.Helper()
	dir := t.TempDir()
	n := 0
	return odporOutcomes(t, func() string {
		n++
		f, err := os.Create(filepath.Join(dir, "f"+strings.Repeat("x", n%2)))
		if err != nil {
			t.Error(err)
			return "create failed"
		}
		defer f.Close()
		wg := rt.MakeChan[chan bool](0)
		for _, s := range []string{"ab", "cd"} {
			s := s
			rt.Go(func() {
				write(f, s)
				rt.Send(wg, true)
			})
		}
		rt.Recv(wg)
		rt.Recv(wg)
		b, _ := os.ReadFile(f.Name())
		return string(b)
	})
}

// Two goroutines write to one file through io.Writer (fmt.Fprint): both
// orders are explored (conform TestFileFprintTwoWriters). With fmt.Fprint
// itself, its write was no step: one run, one order, "exhausted".
func TestFprintToFileIsAStep(t *testing.T) {
	got := twoWriters(t, func(f *os.File, s string) { rt.Fprint(f, s) })
	if want := "abcd | cdab"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// The same through a method call on an io.Writer whose dynamic value is
// the file (rt.FileI), and through io.WriteString and io.Copy.
func TestWriterInterfaceToFileIsAStep(t *testing.T) {
	for name, write := range map[string]func(f *os.File, s string){
		"FileI":       func(f *os.File, s string) { var w io.Writer = f; rt.FileI(w).Write([]byte(s)) },
		"WriteString": func(f *os.File, s string) { rt.WriteString(f, s) },
		"Copy":        func(f *os.File, s string) { rt.Copy(f, strings.NewReader(s)) },
	} {
		t.Run(name, func(t *testing.T) {
			if got, want := twoWriters(t, write), "abcd | cdab"; got != want {
				t.Errorf("outcomes %s, want %s", got, want)
			}
		})
	}
}

// Two *os.File opened on one path are one object: two goroutines, each
// appending through its own file, are explored in both orders. Before,
// each file was its own object: one order.
func TestTwoFilesOnOnePathAreOneObject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared")
	got := odporOutcomes(t, func() string {
		os.Remove(path)
		wg := rt.MakeChan[chan bool](0)
		for _, s := range []string{"ab", "cd"} {
			s := s
			rt.Go(func() {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
				if err == nil {
					rt.FileW(f).WriteString(s)
					f.Close()
				}
				rt.Send(wg, true)
			})
		}
		rt.Recv(wg)
		rt.Recv(wg)
		b, _ := rt.ReadFile(path)
		return string(b)
	})
	if want := "abcd | cdab"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// Writes to a bytes.Buffer or a strings.Builder through fmt.Fprint are no
// steps: a run of two goroutines doing them has the steps of the same run
// without them.
func TestFprintToBufferIsNoStep(t *testing.T) {
	steps := func(fprint bool) int {
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{Trace: true}, s, func() {
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				var b strings.Builder
				if fprint {
					rt.Fprintf(&b, "%d", 1)
					rt.FileI(io.Writer(&b)).Write(nil)
				}
				rt.Send(done, true)
			})
			rt.Recv(done)
		})
		s.End(res)
		if res.Bug != nil || res.Internal != "" {
			t.Fatalf("run: %v %s", res.Bug, res.Internal)
		}
		return len(res.Trace)
	}
	if with, without := steps(true), steps(false); with != without {
		t.Errorf("%d steps with Fprintf to a strings.Builder, %d without", with, without)
	}
}

// keptFile creates a file in a temporary directory of t, closed when t
// ends.
func keptFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "kept"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A file handed to code that keeps it (a bufio.Writer) is counted in
// Result.Unstepped; a bytes buffer, the process's standard error and a
// nil file are not.
func TestFileKeepCounts(t *testing.T) {
	f := keptFile(t)
	res := runOnce(t, engine.Config{}, func() {
		bufio.NewWriter(rt.FileKeep(f))
		var w io.Writer = f
		bufio.NewWriter(rt.FileKeep(w))
		bufio.NewWriter(rt.FileKeep(io.Writer(&strings.Builder{})))
		bufio.NewWriter(rt.FileKeep(os.Stderr))
		var nilFile *os.File
		rt.FileKeep(nilFile)
	})
	if res.Bug != nil || res.Internal != "" {
		t.Fatalf("run: %v %s", res.Bug, res.Internal)
	}
	if res.Unstepped != 2 {
		t.Errorf("Unstepped %d, want 2", res.Unstepped)
	}
}

// A file kept by a bufio.Writer as rt.FileWriter: the Flush's write is
// the file's step, and both orders of two goroutines' writes are
// explored (conform TestFileBufioTwoWriters), and the run counts no
// unstepped file. With rt.FileKeep: one order.
func TestFileWriterIsAStep(t *testing.T) {
	got := twoWriters(t, func(f *os.File, s string) {
		w := bufio.NewWriter(rt.FileWriter(f))
		w.WriteString(s)
		w.Flush()
	})
	if want := "abcd | cdab"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	f := keptFile(t)
	res := runOnce(t, engine.Config{}, func() {
		bufio.NewWriter(rt.FileWriter(f)).Flush()
	})
	if res.Bug != nil || res.Internal != "" || res.Unstepped != 0 {
		t.Errorf("run: %v %q, Unstepped %d", res.Bug, res.Internal, res.Unstepped)
	}
}

// fileEmbedder embeds the file: its Write is the file's, promoted.
type fileEmbedder struct {
	*os.File
}

// Two goroutines write to one file through a bufio.Writer each, over a
// struct embedding the file (conform TestFileEmbeddedBufioTwoWriters):
// both orders are explored, and the run makes no claim it cannot keep
// (nothing unstepped). FileWriter used to pass the struct on, counted: no
// claim at all, one order.
func TestFileWriterOfEmbeddedFileIsAStep(t *testing.T) {
	got := twoWriters(t, func(f *os.File, s string) {
		w := bufio.NewWriter(rt.FileWriter(&fileEmbedder{File: f}))
		w.WriteString(s)
		w.Flush()
	})
	if want := "abcd | cdab"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	f := keptFile(t)
	res := runOnce(t, engine.Config{}, func() {
		w := bufio.NewWriter(rt.FileWriter(&fileEmbedder{File: f}))
		w.WriteString("x")
		w.Flush()
		io.WriteString(rt.FileWriter(struct{ *os.File }{f}), "y")
	})
	if res.Bug != nil || res.Internal != "" || res.Unstepped != 0 {
		t.Errorf("run: %v %q, Unstepped %d", res.Bug, res.Internal, res.Unstepped)
	}
	if got, _ := os.ReadFile(f.Name()); string(got) != "xy" {
		t.Errorf("file %q, want xy", got)
	}
}

// rt.FileWriter passes on as they are what is not a file it models: a
// strings.Builder, the process's standard error, a nil file, nil.
func TestFileWriterLeavesOthers(t *testing.T) {
	var b strings.Builder
	var nilFile *os.File
	for _, w := range []io.Writer{&b, os.Stderr, nilFile, nil} {
		if got := rt.FileWriter(w); got != w {
			t.Errorf("FileWriter(%T %v) = %T %v, want it unchanged", w, w, got, got)
		}
	}
	f := keptFile(t)
	w := rt.FileWriter(f)
	if _, ok := w.(io.StringWriter); !ok {
		t.Errorf("FileWriter(file) is no io.StringWriter")
	}
	if _, ok := w.(io.ReaderFrom); !ok {
		t.Errorf("FileWriter(file) is no io.ReaderFrom")
	}
	w.Write([]byte("a"))
	io.WriteString(w, "b")
	w.(io.ReaderFrom).ReadFrom(strings.NewReader("c"))
	if got, _ := os.ReadFile(f.Name()); string(got) != "abc" {
		t.Errorf("file holds %q, want abc", got)
	}
}

// A goroutine's os.Remove against the test's os.Stat of the same file, and
// two goroutines' os.Mkdir of one directory, are explored in both orders
// (conform TestFSRemoveVsStat, TestFSMkdirRace). Before, Stat and Mkdir
// were no steps: one order, and "exhausted".
func TestStatAndMkdirAreSteps(t *testing.T) {
	dir := t.TempDir()
	file, sub := filepath.Join(dir, "f"), filepath.Join(dir, "d")
	got := odporOutcomes(t, func() string {
		os.WriteFile(file, nil, 0o600)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Remove(file)
			rt.Send(done, true)
		})
		_, err := rt.Stat(file)
		rt.Recv(done)
		return fmt.Sprint("exists ", err == nil)
	})
	if want := "exists false | exists true"; got != want {
		t.Errorf("Remove against Stat: outcomes %s, want %s", got, want)
	}
	got = odporOutcomes(t, func() string {
		os.Remove(sub)
		res := rt.MakeChan[chan string](2)
		for _, s := range []string{"a", "b"} {
			s := s
			rt.Go(func() {
				if rt.Mkdir(sub, 0o700) == nil {
					rt.Send(res, s)
				} else {
					rt.Send(res, "")
				}
			})
		}
		return "made by " + rt.Recv(res) + rt.Recv(res)
	})
	if want := "made by a | made by b"; got != want {
		t.Errorf("two Mkdirs: outcomes %s, want %s", got, want)
	}
}

// os.MkdirAll and os.RemoveAll against os.Stat of the same name, and
// os.ReadDir against os.RemoveAll of the directory, are explored in both
// orders (conform TestFSMkdirAllVsStat, TestFSRemoveAllVsStat). Before,
// they were no steps: one order.
func TestMkdirAllRemoveAllReadDirAreSteps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "d")
	got := odporOutcomes(t, func() string {
		os.RemoveAll(filepath.Join(dir, "a"))
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.MkdirAll(p, 0o700)
			rt.Send(done, true)
		})
		_, err := rt.Stat(p)
		rt.Recv(done)
		return fmt.Sprint("exists ", err == nil)
	})
	if want := "exists false | exists true"; got != want {
		t.Errorf("MkdirAll against Stat: outcomes %s, want %s", got, want)
	}
	got = odporOutcomes(t, func() string {
		os.MkdirAll(p, 0o700)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.RemoveAll(p + "/")
			rt.Send(done, true)
		})
		_, err := rt.ReadDir(p)
		rt.Recv(done)
		return fmt.Sprint("listed ", err == nil)
	})
	if want := "listed false | listed true"; got != want {
		t.Errorf("RemoveAll against ReadDir: outcomes %s, want %s", got, want)
	}
}

// A struct embedding a file, passed to the standard library, and a file
// stored into an interface field of a standard library value
// (cmd.Stdout = f) are counted by FileKeep (the rewriter wraps them):
// the file is written there in no step.
func TestFileKeepFindsEmbeddedFile(t *testing.T) {
	f := keptFile(t)
	type ptrEmbed struct {
		*os.File
		n int
	}
	type valEmbed struct{ os.File }
	type deep struct {
		x int
		ptrEmbed
	}
	type unexportedInner struct{ *os.File }
	type outer struct{ unexportedInner }
	res := runOnce(t, engine.Config{}, func() {
		bufio.NewWriter(rt.FileKeep(&ptrEmbed{File: f, n: 1}))
		bufio.NewWriter(rt.FileKeep(io.Writer(&valEmbed{File: *f})))
		rt.FileKeep(valEmbed{File: *f})
		bufio.NewWriter(rt.FileKeep(&deep{x: 1, ptrEmbed: ptrEmbed{File: f}}))
		rt.FileKeep(outer{unexportedInner{f}})
		var w io.Writer = &ptrEmbed{File: f}
		rt.FileKeep(w)
		// Not counted: FileWriter makes its writes steps
		// (TestFileWriterOfEmbeddedFileIsAStep).
		bufio.NewWriter(rt.FileWriter(w))
		// Not files: no embedded file, a nil one, a standard stream.
		rt.FileKeep(&ptrEmbed{})
		rt.FileKeep(&ptrEmbed{File: os.Stderr})
		rt.FileKeep(&strings.Builder{})
	})
	if res.Bug != nil || res.Internal != "" {
		t.Fatalf("run: %v %s", res.Bug, res.Internal)
	}
	if res.Unstepped != 6 {
		t.Errorf("Unstepped %d, want 6", res.Unstepped)
	}
}

// A step on a name reads or writes the names of the whole tree: a listing
// of a directory and a change of another name under it, above it or
// below it are explored in both orders (conform TestFSReadDirVsCreate,
// TestFSRemoveAllVsReadDirSub, TestFSMkdirAllVsReadDir,
// TestFSRenameDirVsStat, fid7fs.go). Before, each was a step on its own
// name's object only, independent of the other: one order, "exhausted".
func TestNameChangesAgainstListings(t *testing.T) {
	var root string
	list := func(dir string) string {
		es, err := rt.ReadDir(dir)
		if err != nil {
			return "error"
		}
		var ns []string
		for _, e := range es {
			ns = append(ns, e.Name())
		}
		return "[" + strings.Join(ns, " ") + "]"
	}
	for _, c := range []struct {
		name   string
		setup  func()
		change func()
		look   func() string
		want   string
	}{{
		name:   "Create vs ReadDir",
		setup:  func() { os.RemoveAll(filepath.Join(root, "f")) },
		change: func() { rt.WriteFile(filepath.Join(root, "f"), nil, 0o600) },
		look:   func() string { return list(root) },
		want:   "[] | [f]",
	}, {
		name: "RemoveAll vs ReadDir of a directory under it",
		setup: func() {
			os.MkdirAll(filepath.Join(root, "d", "sub"), 0o700)
			os.WriteFile(filepath.Join(root, "d", "sub", "f"), nil, 0o600)
		},
		change: func() { rt.RemoveAll(filepath.Join(root, "d")) },
		look:   func() string { return list(filepath.Join(root, "d", "sub")) },
		want:   "[] | [f] | error", // [] between the removals of f and sub
	}, {
		// Natively (conform TestFSRenameVsReadDir) the listing's reads
		// can miss both names: the new one made behind their position,
		// the old one gone before they reached it.
		name: "Rename within the directory vs ReadDir",
		setup: func() {
			os.RemoveAll(filepath.Join(root, "b"))
			os.WriteFile(filepath.Join(root, "a"), nil, 0o600)
		},
		change: func() { rt.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")) },
		look:   func() string { return list(root) },
		want:   "[] | [a] | [b]",
	}, {
		name:   "MkdirAll vs ReadDir of the grandparent",
		setup:  func() { os.RemoveAll(filepath.Join(root, "a")) },
		change: func() { rt.MkdirAll(filepath.Join(root, "a", "b"), 0o700) },
		look:   func() string { return list(root) },
		want:   "[] | [a]",
	}, {
		name: "Rename of a directory vs Stat under its new name",
		setup: func() {
			os.RemoveAll(filepath.Join(root, "d2"))
			os.MkdirAll(filepath.Join(root, "d1", "sub"), 0o700)
		},
		change: func() { rt.Rename(filepath.Join(root, "d1"), filepath.Join(root, "d2")) },
		look: func() string {
			_, err := rt.Stat(filepath.Join(root, "d2", "sub"))
			return fmt.Sprint("exists ", err == nil)
		},
		want: "exists false | exists true",
	}} {
		t.Run(c.name, func(t *testing.T) {
			root = t.TempDir()
			got := odporOutcomes(t, func() string {
				c.setup()
				done := rt.MakeChan[chan bool](0)
				rt.Go(func() {
					c.change()
					rt.Send(done, true)
				})
				out := c.look()
				rt.Recv(done)
				return out
			})
			if got != c.want {
				t.Errorf("outcomes %s, want %s", got, c.want)
			}
		})
	}
}

// On Linux, a directory removed between the reads of its listing makes
// the last read fail: os.ReadDir returns the entries read with the error
// (conform TestFSReadDirVsRemoveAll, "entries 1, error true"). ReadDir's
// last read is a step of its own. And os.RemoveAll removes the entries
// of a directory before it: a listing between them sees it empty
// ("entries 0, error false"). Before, ReadDir and RemoveAll were one step
// each: two outcomes of the four.
func TestReadDirLastReadAfterRemoveAll(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the failing last read is Linux's")
	}
	p := filepath.Join(t.TempDir(), "d")
	got := odporOutcomes(t, func() string {
		os.MkdirAll(filepath.Join(p, "sub"), 0o700)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.RemoveAll(p)
			rt.Send(done, true)
		})
		es, err := rt.ReadDir(p)
		rt.Recv(done)
		return fmt.Sprintf("entries %d, error %v", len(es), err != nil)
	})
	if want := "entries 0, error false | entries 0, error true | entries 1, error false | entries 1, error true"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// filepath.WalkDir, filepath.Walk and filepath.Glob, and a listing
// through a directory's file (Readdirnames), against a remove or a create
// under the directory, are explored in both orders (conform
// TestFSWalkDirVsRemove, TestFSGlobVsCreate, TestFSReaddirnamesVsCreate).
// Before, their lookups and listings were no steps, or steps on the
// directory's object only: one order, "exhausted".
func TestWalkGlobListingsAreSteps(t *testing.T) {
	count := func(walk func(root string, n *int)) func(root string) string {
		return func(root string) string {
			n := 0
			walk(root, &n)
			return fmt.Sprint(n)
		}
	}
	for _, c := range []struct {
		name   string
		create bool // the goroutine creates f; otherwise it removes b
		look   func(root string) string
		want   string
	}{{
		name: "WalkDir vs Remove",
		look: count(func(root string, n *int) {
			rt.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					*n++
				}
				return nil
			})
		}),
		want: "1 | 2",
	}, {
		name: "Walk vs Remove",
		look: count(func(root string, n *int) {
			rt.Walk(root, func(_ string, fi fs.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					*n++
				}
				return nil
			})
		}),
		want: "1 | 2",
	}, {
		name:   "Glob vs Create",
		create: true,
		look: func(root string) string {
			m, _ := rt.Glob(filepath.Join(root, "f*"))
			return fmt.Sprint(len(m))
		},
		want: "0 | 1",
	}, {
		name:   "Readdirnames vs Create",
		create: true,
		look: func(root string) string {
			d, err := os.Open(root)
			if err != nil {
				return err.Error()
			}
			defer d.Close()
			ns, _ := rt.FileDir(d).Readdirnames(-1)
			return fmt.Sprint(len(ns))
		},
		want: "2 | 3",
	}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			got := odporOutcomes(t, func() string {
				os.Remove(filepath.Join(root, "f"))
				for _, n := range []string{"a", "b"} {
					os.WriteFile(filepath.Join(root, n), nil, 0o600)
				}
				done := rt.MakeChan[chan bool](0)
				rt.Go(func() {
					if c.create {
						rt.WriteFile(filepath.Join(root, "f"), nil, 0o600)
					} else {
						rt.Remove(filepath.Join(root, "b"))
					}
					rt.Send(done, true)
				})
				out := c.look(root)
				rt.Recv(done)
				return out
			})
			if got != c.want {
				t.Errorf("outcomes %s, want %s", got, c.want)
			}
		})
	}
}

// A directory renamed between ReadDir's two steps is still there: its
// last read does not fail (only a removed directory's does), so the
// listing has its entries and no error, or fails to open.
func TestReadDirLastReadAfterRename(t *testing.T) {
	root := t.TempDir()
	p, q := filepath.Join(root, "d"), filepath.Join(root, "e")
	got := odporOutcomes(t, func() string {
		os.RemoveAll(q)
		os.MkdirAll(filepath.Join(p, "sub"), 0o700)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Rename(p, q)
			rt.Send(done, true)
		})
		es, err := rt.ReadDir(p)
		rt.Recv(done)
		return fmt.Sprintf("entries %d, error %v", len(es), err != nil)
	})
	if want := "entries 0, error true | entries 1, error false"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
