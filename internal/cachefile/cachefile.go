// Package cachefile keeps heddle's cache from growing without bound: the
// entries a run uses are marked as used, and Trim removes those no run has
// used for a while, the way the go command trims its build cache.
//
// The cache (build.CacheDir) holds:
//
//	build/HASH/   one module's go.mod copy, overlay and test binaries (HASH of the module root)
//	rewrite/XX/   rewritten files, content-addressed
//	rewrite/mod/  copies of dependency modules whose files are rewritten
//	rt-HASH/      the runtime's sources, one directory per heddle version
//	load/         the load cache's entries
//	schedules/    the schedules of reports written without -o (never trimmed)
package cachefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// markEvery is how stale a modification time must be before MarkUsed
	// writes it again: marking costs a write only once an hour per entry.
	markEvery = time.Hour
	// TrimAge is how long an entry may go unused before Trim removes it.
	TrimAge = 5 * 24 * time.Hour
	// trimEvery is how often Trim looks at the cache at all.
	trimEvery = time.Hour
	// tmpAge is how old a temporary directory of an interrupted heddle
	// must be before Trim removes it.
	tmpAge = 24 * time.Hour
	// rootFile, in a build directory, names the module root it serves.
	rootFile = "root"
)

// MarkUsed records that the entry at path was just used, by setting its
// modification time to now unless it is already less than an hour old. fi
// is path's FileInfo if the caller has it, or nil. Errors are ignored: a
// mark that fails only makes the entry look older than it is.
func MarkUsed(path string, fi fs.FileInfo) {
	if fi == nil {
		var err error
		if fi, err = os.Stat(path); err != nil {
			return
		}
	}
	if now := time.Now(); now.Sub(fi.ModTime()) > markEvery {
		_ = os.Chtimes(path, now, now)
	}
}

// NoteRoot records, in the build directory dir, the module root it
// serves, so that Trim can remove it once that directory is gone (a module
// copied to a temporary directory and tested there).
func NoteRoot(dir, root string) {
	p := filepath.Join(dir, rootFile)
	if b, err := os.ReadFile(p); err == nil && string(b) == root {
		return
	}
	_ = os.WriteFile(p, []byte(root), 0o644)
}

// Trim removes from the cache at dir, at most once an hour (the time of
// the last trim is kept in dir/trim.txt):
//   - build directories whose module root no longer exists, or not used
//     for TrimAge;
//   - runtime directories, rewritten files, dependency copies and load
//     cache entries not used for TrimAge;
//   - temporary directories of heddle processes that ended mid-write.
//
// It returns what it removed, relative to dir. An entry in use is never
// older than an hour, so heddle processes sharing the cache are safe.
func Trim(dir string, now time.Time) ([]string, error) {
	stamp := filepath.Join(dir, "trim.txt")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < trimEvery {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stamp, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.Chtimes(stamp, now, now); err != nil {
		return nil, err
	}
	t := trimmer{dir: dir, now: now}
	t.builds()
	t.runtimes()
	t.rewrites()
	t.loads()
	return t.removed, errors.Join(t.errs...)
}

type trimmer struct {
	dir     string
	now     time.Time
	removed []string
	errs    []error
}

// old reports whether path's modification time is older than age; a path
// that does not exist is old.
func (t *trimmer) old(path string, age time.Duration) bool {
	fi, err := os.Stat(path)
	return err != nil || t.now.Sub(fi.ModTime()) > age
}

func (t *trimmer) remove(path string) {
	if err := os.RemoveAll(path); err != nil {
		t.errs = append(t.errs, err)
		return
	}
	rel, err := filepath.Rel(t.dir, path)
	if err != nil {
		rel = path
	}
	t.removed = append(t.removed, filepath.ToSlash(rel))
}

func (t *trimmer) entries(dir string) []fs.DirEntry {
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.errs = append(t.errs, err)
	}
	return es
}

// builds trims build/: a build directory is used when its go.mod copy is
// written, at every load.
func (t *trimmer) builds() {
	base := filepath.Join(t.dir, "build")
	for _, e := range t.entries(base) {
		d := filepath.Join(base, e.Name())
		if !e.IsDir() {
			continue
		}
		gone := false
		if root, err := os.ReadFile(filepath.Join(d, rootFile)); err == nil {
			_, serr := os.Stat(string(root))
			gone = os.IsNotExist(serr)
		}
		if gone || t.old(filepath.Join(d, "heddle.mod"), TrimAge) && t.old(d, TrimAge) {
			t.remove(d)
		}
	}
}

// runtimes trims rt-HASH/ (used: its .complete is marked) and the
// rt-tmp-* directories of interrupted extractions.
func (t *trimmer) runtimes() {
	for _, e := range t.entries(t.dir) {
		d := filepath.Join(t.dir, e.Name())
		switch name := e.Name(); {
		case !e.IsDir() || !strings.HasPrefix(name, "rt-"):
		case strings.HasPrefix(name, "rt-tmp-"):
			if t.old(d, tmpAge) {
				t.remove(d)
			}
		case t.old(filepath.Join(d, ".complete"), TrimAge) && t.old(d, TrimAge):
			t.remove(d)
		}
	}
}

// rewrites trims rewrite/: content-addressed files (marked when read) and
// dependency copies (their .heddle-copied is marked when reused).
func (t *trimmer) rewrites() {
	base := filepath.Join(t.dir, "rewrite")
	for _, e := range t.entries(base) {
		d := filepath.Join(base, e.Name())
		switch {
		case !e.IsDir():
		case e.Name() == "mod":
			for _, m := range t.entries(d) {
				md := filepath.Join(d, m.Name())
				if t.old(filepath.Join(md, ".heddle-copied"), TrimAge) && t.old(md, TrimAge) {
					t.remove(md)
				}
			}
		case strings.HasPrefix(e.Name(), ".modcopy-"):
			if t.old(d, tmpAge) {
				t.remove(d)
			}
		default:
			for _, f := range t.entries(d) {
				if p := filepath.Join(d, f.Name()); t.old(p, TrimAge) {
					t.remove(p)
				}
			}
		}
	}
}

// loads trims load/: an entry is marked when it is hit.
func (t *trimmer) loads() {
	base := filepath.Join(t.dir, "load")
	for _, e := range t.entries(base) {
		if p := filepath.Join(base, e.Name()); t.old(p, TrimAge) {
			t.remove(p)
		}
	}
}
