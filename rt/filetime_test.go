package rt_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A file a run creates or truncates through the rewritten os functions
// has the run's virtual time as its modification time, however it is read
// (here an open file's Stat, which is not rewritten): gofrs/flock's
// TestFlock_Stat compares an open lock file's ModTime with time.Now and
// wants them within a second, which under heddle they were not once a few
// seconds of exploration had passed (the file system's clock is the real
// one). A file that was there before, opened with O_CREATE, keeps its
// times, as natively.
func TestCreatedFileHasTheVirtualTime(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	oldTime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(old, oldTime, oldTime); err != nil {
		t.Fatal(err)
	}
	epoch := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	type stamp struct {
		name      string
		mod, want time.Time
	}
	var got []stamp
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{Epoch: epoch}, s, func() {
		rt.Sleep(time.Hour) // the virtual clock moves on
		check := func(name string, stat func() (os.FileInfo, error)) {
			want := engine.Current().Now()
			fi, err := stat()
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			got = append(got, stamp{name, fi.ModTime(), want})
		}
		f, err := rt.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDONLY, 0o600)
		if err != nil {
			t.Error(err)
			return
		}
		check("OpenFile O_CREATE", f.Stat)
		f.Close()
		f, err = rt.Create(filepath.Join(dir, "created"))
		if err != nil {
			t.Error(err)
			return
		}
		check("Create", f.Stat)
		f.Close()
		if err := rt.WriteFile(filepath.Join(dir, "written"), []byte("x"), 0o600); err != nil {
			t.Error(err)
		}
		check("WriteFile", func() (os.FileInfo, error) { return os.Stat(filepath.Join(dir, "written")) })
		if err := rt.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
			t.Error(err)
		}
		check("Mkdir", func() (os.FileInfo, error) { return os.Stat(filepath.Join(dir, "d")) })
		f, err = rt.OpenFile(old, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Error(err)
			return
		}
		fi, err := f.Stat()
		f.Close()
		if err == nil {
			got = append(got, stamp{"OpenFile O_CREATE of a file that was there", fi.ModTime(), oldTime})
		}
	})
	if res.Bug != nil || res.Internal != "" {
		t.Fatalf("run: %v %s", res.Bug, res.Internal)
	}
	if len(got) != 5 {
		t.Fatalf("%d files checked, want 5", len(got))
	}
	for _, g := range got {
		if !g.mod.Equal(g.want) {
			t.Errorf("%s: modification time %v, want %v", g.name, g.mod, g.want)
		}
	}
}
