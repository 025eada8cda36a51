package rt

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"heddle.dev/internal/engine"
)

// Listings and changes of names that the standard library makes in code
// heddle does not rewrite: filepath.Walk, filepath.WalkDir and
// filepath.Glob look names up and list directories by os.Lstat, os.Stat,
// os.Open and Readdirnames, which were no steps (conform
// TestFSWalkDirVsRemove, TestFSGlobVsCreate: one order, "exhausted");
// *os.File's ReadDir, Readdir and Readdirnames list a directory;
// os.Symlink, os.Link and os.Readlink make or read a name. Each is now a
// step (or, for a walk or a glob, a step per lookup and listing, in the
// order the standard library makes them, between the calls of the
// walk's function) that reads or writes the tree's names (file.go).

// FileDir replaces the receiver f of a call of *os.File's ReadDir,
// Readdir or Readdirnames: a listing of a directory, which reads the
// tree's names (conform TestFSReaddirnamesVsCreate).
func FileDir(f *os.File) *os.File {
	if f != nil {
		fsStep(f.Name(), engine.OpFSRead)
	}
	return f
}

// FileDirI is FileDir for a receiver of an interface type or a type
// parameter (fs.ReadDirFile): FileDir's step when x is dynamically an
// *os.File.
func FileDirI[T any](x T) T {
	if f, ok := any(x).(*os.File); ok && f != nil {
		fsStep(f.Name(), engine.OpFSRead)
	}
	return x
}

// Symlink replaces os.Symlink.
func Symlink(oldname, newname string) error {
	fsStep(newname, engine.OpFSWrite)
	return os.Symlink(oldname, newname)
}

// Link replaces os.Link.
func Link(oldname, newname string) error {
	fsStep(newname, engine.OpFSWrite)
	return os.Link(oldname, newname)
}

// Readlink replaces os.Readlink.
func Readlink(name string) (string, error) {
	fsStep(name, engine.OpFSRead)
	return os.Readlink(name)
}

// WalkDir replaces filepath.WalkDir: its body, whose os.Lstat and
// os.ReadDir are steps (Lstat, ReadDir).
func WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkDir(root, fs.FileInfoToDirEntry(info), fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

// walkDir is filepath's walkDir.
func walkDir(path string, d fs.DirEntry, walkDirFn fs.WalkDirFunc) error {
	if err := walkDirFn(path, d, nil); err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	dirs, err := ReadDir(path)
	if err != nil {
		err = walkDirFn(path, d, err)
		if err != nil {
			if err == filepath.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, d1 := range dirs {
		path1 := filepath.Join(path, d1.Name())
		if err := walkDir(path1, d1, walkDirFn); err != nil {
			if err == filepath.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// Walk replaces filepath.Walk: its body, whose os.Lstat and listings are
// steps.
func Walk(root string, fn filepath.WalkFunc) error {
	info, err := Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walk(root, info, fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

// walk is filepath's walk.
func walk(path string, info fs.FileInfo, walkFn filepath.WalkFunc) error {
	if !info.IsDir() {
		return walkFn(path, info, nil)
	}
	names, err := readDirNames(path)
	err1 := walkFn(path, info, err)
	if err != nil || err1 != nil {
		return err1
	}
	for _, name := range names {
		filename := filepath.Join(path, name)
		fileInfo, err := Lstat(filename)
		if err != nil {
			if err := walkFn(filename, fileInfo, err); err != nil && err != filepath.SkipDir {
				return err
			}
		} else {
			err = walk(filename, fileInfo, walkFn)
			if err != nil {
				if !fileInfo.IsDir() || err != filepath.SkipDir {
					return err
				}
			}
		}
	}
	return nil
}

// readDirNames is filepath's readDirNames, one step.
func readDirNames(dirname string) ([]string, error) {
	fsStep(dirname, engine.OpFSRead)
	f, err := os.Open(dirname)
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Glob replaces filepath.Glob: its body, each lookup or listing of a
// directory a step. (On Windows, whose volume names filepath's own
// code handles, one step, then filepath.Glob.)
func Glob(pattern string) ([]string, error) {
	if runtime.GOOS == "windows" {
		fsStep(pattern, engine.OpFSRead)
		return filepath.Glob(pattern)
	}
	return globWithLimit(pattern, 0)
}

// globWithLimit is filepath's globWithLimit, for a system other than
// Windows.
func globWithLimit(pattern string, depth int) (matches []string, err error) {
	const pathSeparatorsLimit = 10000
	if depth == pathSeparatorsLimit {
		return nil, filepath.ErrBadPattern
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !hasMeta(pattern) {
		if _, err = Lstat(pattern); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	dir, file := filepath.Split(pattern)
	dir = cleanGlobPath(dir)
	if !hasMeta(dir) {
		return glob(dir, file, nil)
	}
	if dir == pattern {
		return nil, filepath.ErrBadPattern
	}
	var m []string
	m, err = globWithLimit(dir, depth+1)
	if err != nil {
		return
	}
	for _, d := range m {
		matches, err = glob(d, file, matches)
		if err != nil {
			return
		}
	}
	return
}

// cleanGlobPath is filepath's cleanGlobPath.
func cleanGlobPath(path string) string {
	switch path {
	case "":
		return "."
	case string(filepath.Separator):
		return path
	default:
		return path[0 : len(path)-1]
	}
}

// glob is filepath's glob: the lookup and listing of dir are one step.
func glob(dir, pattern string, matches []string) (m []string, e error) {
	m = matches
	fsStep(dir, engine.OpFSRead)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	sort.Strings(names)
	for _, n := range names {
		matched, err := filepath.Match(pattern, n)
		if err != nil {
			return m, err
		}
		if matched {
			m = append(m, filepath.Join(dir, n))
		}
	}
	return
}

// hasMeta is filepath's hasMeta, for a system other than Windows.
func hasMeta(path string) bool {
	return strings.ContainsAny(path, `*?[\`)
}
