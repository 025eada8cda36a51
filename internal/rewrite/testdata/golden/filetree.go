package filetree

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Listings and changes of names: a directory's listing through its file
// is rt.FileDir (rt.FileDirI through an interface); filepath's walks and
// globs, os.Symlink, os.Link and os.Readlink are replaced by rt's.
func names(d *os.File, rd fs.ReadDirFile) {
	d.ReadDir(-1)
	d.Readdirnames(-1)
	d.Readdir(1)
	d.Write(nil)
	rd.ReadDir(1)
	filepath.WalkDir(".", func(string, fs.DirEntry, error) error { return nil })
	filepath.Walk(".", func(string, fs.FileInfo, error) error { return nil })
	filepath.Glob("*.go")
	os.Symlink("a", "b")
	os.Link("a", "c")
	os.Readlink("b")
}
