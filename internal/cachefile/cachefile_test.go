package cachefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// entry writes a file of the cache at dir, last modified age before now.
func entry(t *testing.T, dir, name string, now time.Time, age time.Duration) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(name), 0o444); err != nil {
		t.Fatal(err)
	}
	setAge(t, p, now, age)
	return p
}

func setAge(t *testing.T, p string, now time.Time, age time.Duration) {
	t.Helper()
	if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
		t.Fatal(err)
	}
}

func TestTrim(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	day := 24 * time.Hour
	live := t.TempDir() // a module root that still exists

	// build/: used recently; unused for a week; root gone although recent.
	entry(t, dir, "build/fresh/heddle.mod", now, time.Hour)
	entry(t, dir, "build/fresh/bin/x/p.test", now, 9*day)
	NoteRoot(filepath.Join(dir, "build/fresh"), live)
	entry(t, dir, "build/stale/heddle.mod", now, 7*day)
	entry(t, dir, "build/gone/heddle.mod", now, time.Minute)
	NoteRoot(filepath.Join(dir, "build/gone"), filepath.Join(live, "removed"))
	// Runtimes and their temporary directories.
	entry(t, dir, "rt-aaaa/.complete", now, day)
	entry(t, dir, "rt-bbbb/.complete", now, 6*day)
	entry(t, dir, "rt-tmp-1/x.go", now, 2*day)
	entry(t, dir, "rt-tmp-2/x.go", now, time.Minute)
	// Rewritten files, dependency copies, load entries.
	entry(t, dir, "rewrite/ab/ab12-x.go", now, day)
	entry(t, dir, "rewrite/ab/ab34-y.go", now, 6*day)
	entry(t, dir, "rewrite/mod/m@v1-1/.heddle-copied", now, 2*day)
	entry(t, dir, "rewrite/mod/m@v1-2/.heddle-copied", now, 8*day)
	entry(t, dir, "rewrite/.modcopy-9/a.go", now, 3*day)
	entry(t, dir, "load/k1.json", now, 4*day)
	entry(t, dir, "load/k2.json", now, 5*day+time.Hour)
	entry(t, dir, "schedules/m-1/TestX.json", now, 90*day)
	// Directories themselves are as old as their files, as they would be.
	for _, d := range []string{"build/stale", "build/fresh", "build/gone", "rt-bbbb", "rt-aaaa", "rt-tmp-1",
		"rewrite/mod/m@v1-2", "rewrite/mod/m@v1-1", "rewrite/.modcopy-9"} {
		age := 8 * day
		if d == "build/fresh" || d == "rt-aaaa" || d == "rewrite/mod/m@v1-1" {
			age = time.Hour
		}
		setAge(t, filepath.Join(dir, d), now, age)
	}

	removed, err := Trim(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{"build/gone", "build/stale", "load/k2.json", "rewrite/.modcopy-9", "rewrite/ab/ab34-y.go",
		"rewrite/mod/m@v1-2", "rt-bbbb", "rt-tmp-1"}
	if !slices.Equal(removed, want) {
		t.Errorf("Trim removed\n\t%q\nwant\n\t%q", removed, want)
	}
	for _, keep := range []string{"build/fresh/bin/x/p.test", "rt-aaaa/.complete", "rt-tmp-2/x.go", "rewrite/ab/ab12-x.go",
		"rewrite/mod/m@v1-1/.heddle-copied", "load/k1.json", "schedules/m-1/TestX.json"} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("Trim removed %s: %v", keep, err)
		}
	}

	// Within the hour, Trim does not look again.
	entry(t, dir, "load/k3.json", now, 30*day)
	if removed, err := Trim(dir, now.Add(30*time.Minute)); err != nil || len(removed) != 0 {
		t.Errorf("Trim half an hour later removed %q (%v), want nothing", removed, err)
	}
	if removed, err := Trim(dir, now.Add(2*time.Hour)); err != nil || !slices.Equal(removed, []string{"load/k3.json"}) {
		t.Errorf("Trim two hours later removed %q (%v), want [load/k3.json]", removed, err)
	}
}

func TestMarkUsed(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := entry(t, dir, "old", now, 6*24*time.Hour)
	recent := entry(t, dir, "recent", now, 10*time.Minute)
	MarkUsed(old, nil)
	fi, err := os.Stat(recent)
	if err != nil {
		t.Fatal(err)
	}
	MarkUsed(recent, fi)
	if fi, err := os.Stat(old); err != nil || now.Sub(fi.ModTime()) > time.Minute {
		t.Errorf("an entry used now still looks unused since %v (%v)", fi.ModTime(), err)
	}
	if fi2, err := os.Stat(recent); err != nil || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("an entry marked ten minutes ago was written again")
	}
	MarkUsed(filepath.Join(dir, "missing"), nil) // no panic, no file
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("MarkUsed created a missing entry: %v", err)
	}
}
