package prog

import (
	"os"
	"path/filepath"
	"testing"
)

// Fifth audit: the file system is state the kernel orders, reached by
// package os's path functions, which heddle does not rewrite.

// TestFSWriteVsRead: a goroutine writes a file while the test reads it:
// the read sees the old content or the new.
func TestFSWriteVsRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.WriteFile(p, []byte("new"), 0o644)
		done <- true
	}()
	b, err := os.ReadFile(p)
	<-done
	t.Errorf("%q %v", b, err)
}

// TestFSMkdirRace: two goroutines make the same directory: one of them
// fails.
func TestFSMkdirRace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d")
	res := make(chan string, 2)
	for _, s := range []string{"a", "b"} {
		go func() {
			if os.Mkdir(p, 0o755) == nil {
				res <- s
			} else {
				res <- ""
			}
		}()
	}
	a, b := <-res, <-res
	t.Errorf("made by %s", a+b)
}

// TestFSRemoveVsStat: a goroutine removes a file while the test looks at
// it.
func TestFSRemoveVsStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		os.Remove(p)
		done <- true
	}()
	_, err := os.Stat(p)
	<-done
	t.Errorf("exists %v", err == nil)
}
