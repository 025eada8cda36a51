package prog

import (
	"os"
	"path/filepath"
	"testing"
)

// Sixth fidelity audit: os.MkdirAll, os.RemoveAll and os.ReadDir against
// another goroutine's access of the same name; and ReadDir against a
// create of a name under the directory, which heddle does not order (a
// known gap: a step writes one object, the name's).

// TestFSMkdirAllVsStat: a goroutine makes a directory (and its parent)
// while the test looks at it.
func TestFSMkdirAllVsStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "d")
	done := make(chan bool)
	go func() {
		os.MkdirAll(p, 0o755)
		done <- true
	}()
	_, err := os.Stat(p)
	<-done
	t.Errorf("exists %v", err == nil)
}

// TestFSRemoveAllVsStat: a goroutine removes a directory tree while the
// test looks at its root.
func TestFSRemoveAllVsStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d")
	if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.RemoveAll(p)
		done <- true
	}()
	_, err := os.Stat(p)
	<-done
	t.Errorf("exists %v", err == nil)
}

// TestFSReadDirVsRemoveAll: a goroutine removes a directory while the test
// lists it.
func TestFSReadDirVsRemoveAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d")
	if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.RemoveAll(p)
		done <- true
	}()
	es, err := os.ReadDir(p)
	<-done
	t.Errorf("entries %d, error %v", len(es), err != nil)
}

// TestFSReadDirVsCreate: a goroutine creates a file in a directory while
// the test lists the directory. Known gap: the create is a step on the
// file's name, ReadDir on the directory's.
func TestFSReadDirVsCreate(t *testing.T) {
	dir := t.TempDir()
	done := make(chan bool)
	go func() {
		os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
		done <- true
	}()
	es, _ := os.ReadDir(dir)
	<-done
	t.Errorf("entries %d", len(es))
}
