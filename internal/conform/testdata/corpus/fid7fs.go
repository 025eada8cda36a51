package prog

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// File-system metadata: a listing or a lookup of a name against another
// goroutine's change of a name in the same tree, where the two names are
// not the same (a rename, a nested directory, a parent made or removed).

// names lists the entries of dir, sorted, or "error".
func names(dir string) string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return "error"
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	sort.Strings(ns)
	return "[" + strings.Join(ns, " ") + "]"
}

// TestFSRenameVsReadDir: a goroutine renames a file of a directory while
// the test lists the directory.
func TestFSRenameVsReadDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
		done <- true
	}()
	got := names(dir)
	<-done
	t.Errorf("entries %s", got)
}

// TestFSRenameDirVsStat: a goroutine renames a directory while the test
// looks up a file two levels under its new name.
func TestFSRenameDirVsStat(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d1", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d1", "sub", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.Rename(filepath.Join(root, "d1"), filepath.Join(root, "d2"))
		done <- true
	}()
	_, err := os.Stat(filepath.Join(root, "d2", "sub", "f"))
	<-done
	t.Errorf("exists %v", err == nil)
}

// TestFSRemoveAllVsReadDirSub: a goroutine removes a tree while the test
// lists a directory inside it.
func TestFSRemoveAllVsReadDirSub(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d")
	if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "sub", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.RemoveAll(p)
		done <- true
	}()
	got := names(filepath.Join(p, "sub"))
	<-done
	t.Errorf("entries %s", got)
}

// TestFSMkdirAllVsReadDir: a goroutine makes a directory and its parent
// while the test lists the grandparent.
func TestFSMkdirAllVsReadDir(t *testing.T) {
	root := t.TempDir()
	done := make(chan bool)
	go func() {
		os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
		done <- true
	}()
	got := names(root)
	<-done
	t.Errorf("entries %s", got)
}

// TestFSOpenFileCreateVsReadDir: a goroutine creates a file with
// os.OpenFile while the test lists the directory.
func TestFSOpenFileCreateVsReadDir(t *testing.T) {
	dir := t.TempDir()
	done := make(chan bool)
	go func() {
		if f, err := os.OpenFile(filepath.Join(dir, "f"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			f.Close()
		}
		done <- true
	}()
	got := names(dir)
	<-done
	t.Errorf("entries %s", got)
}

// TestFSRemoveVsReadDir: a goroutine removes a file of a directory while
// the test lists the directory.
func TestFSRemoveVsReadDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.Remove(filepath.Join(dir, "f"))
		done <- true
	}()
	got := names(dir)
	<-done
	t.Errorf("entries %s", got)
}

// TestFSWalkDirVsRemove: a goroutine removes a file of a tree while the
// test walks the tree.
func TestFSWalkDirVsRemove(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(root, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan bool)
	go func() {
		os.Remove(filepath.Join(root, "b"))
		done <- true
	}()
	n := 0
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	<-done
	t.Errorf("files %d", n)
}

// TestFSGlobVsCreate: a goroutine creates a file while the test matches
// a pattern in its directory.
func TestFSGlobVsCreate(t *testing.T) {
	dir := t.TempDir()
	done := make(chan bool)
	go func() {
		os.WriteFile(filepath.Join(dir, "x.txt"), nil, 0o644)
		done <- true
	}()
	m, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	<-done
	t.Errorf("matches %d", len(m))
}

// TestFSReaddirnamesVsCreate: a goroutine creates a file in a directory
// the test has open, while the test reads its names.
func TestFSReaddirnamesVsCreate(t *testing.T) {
	dir := t.TempDir()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan bool)
	go func() {
		os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
		done <- true
	}()
	ns, _ := d.Readdirnames(-1)
	<-done
	t.Errorf("names %d", len(ns))
}
