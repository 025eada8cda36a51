package build

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteFileAtomic: a reader never sees a file that another writer has
// half written, as the shards of one exploration sharing the build cache
// did with heddle.mod ("missing module declaration").
func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heddle.mod")
	data := bytes.Repeat([]byte("module example.com/m\n"), 4096)
	if err := writeFileAtomic(path, data); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if err := writeFileAtomic(path, data); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	bad := 0
	go func() { wg.Wait(); close(stop) }()
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(b, data) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d reads saw a partly written file", bad)
	}
	if m, _ := filepath.Glob(path + ".*.tmp"); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
