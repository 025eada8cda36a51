package rt

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// An os.File's offset and writes are ordered by package os's own lock
// (its fdMutex), not rewritten: without a step, two goroutines' writes to
// one file were independent for DPOR, which explored one order only
// (conform TestFileTwoWriters, TestFileFprintTwoWriters). Each access of a
// file that rewritten code makes, or asks the standard library to make at
// once, is a step, an atomic write of the file's object (fileObj):
//
//   - a call of an *os.File method that reads or writes the file or moves
//     its offset (FileW);
//   - the same methods called through an interface (io.Writer, io.Reader,
//     ...) whose dynamic value is an *os.File (FileI);
//   - fmt.Fprint and its kin, io.WriteString, io.ReadAll, io.Copy and
//     their kin, when their io.Writer or io.Reader is dynamically an
//     *os.File (Fprint, ..., Copy); the dynamic type of the value passed on
//     is unchanged, so io.Copy's fast paths and type assertions see the
//     file itself;
//   - os.ReadFile, os.WriteFile, os.Create, os.Open, os.OpenFile,
//     os.Remove, os.Rename, os.Truncate, os.Stat, os.Lstat, os.Mkdir,
//     os.MkdirAll, os.RemoveAll and os.ReadDir, on the object of the
//     file's name, which also read or write the names of the file tree
//     (fsStep).
//
// The names of the file tree (every directory's entries) are one object
// (the strategies' fsNames): a step that looks a name up or lists a
// directory (engine.OpFSRead: Open, Stat, ReadDir, ...) reads it, one that
// may make, remove or move a name (engine.OpFSWrite: Create, Remove,
// Rename, Mkdir, ...) writes it, in the same step as its file's object.
// A change of a name under a directory changes what a listing of it sees,
// and so may a change far from the name looked at: MkdirAll(a/b/c) makes
// the entry a of a listing of a's parent, RemoveAll(d) and Rename(d, e)
// of d/sub/f's directories, and a lookup of e/sub/f passes through them.
// One object for all names is sound without following paths (relative
// ones, symbolic links, hard links, ..); its cost is that two changes of
// names in unrelated directories are ordered too (conform
// TestFSReadDirVsCreate, TestFSReadDirVsRemoveAll, fid7fs.go).
//
// A file handed to the standard library that keeps it as an io.Writer
// to write it later, and looks at it only as one (bufio.NewWriter,
// json.NewEncoder, csv.NewWriter, gzip.NewWriter, ...), is passed as a
// keptFile whose writes are steps (FileWriter). Otherwise (log.New, whose
// writes happen under a lock of package log; bufio.NewReader;
// slog.NewTextHandler; ...) it is read or written later by code heddle
// does not rewrite, in no step: FileKeep counts it
// (engine.Result.Unstepped), and an exhaustive exploration whose runs had
// more than one goroutine claims nothing. The process's own standard
// streams (named /dev/stdin, /dev/stdout, /dev/stderr) are left out of
// all this: what is written there does not come back to the test. A test
// that captures os.Stdout (an example's output) swaps it for a pipe, whose
// name is another. Accesses are no steps either while the running
// goroutine is alone (engine.Exec.Alone).

// fileObjs are the objects standing for files: a file's object is the one
// its name's base hashes to, so two *os.File opened on one path (or a
// file and os.ReadFile of its name) are one object for DPOR. Two files
// whose names collide are dependent when they need not be: more runs, no
// missed order. Only the addresses are used.
var fileObjs [64]byte

// fileObj returns the object of the file named name, or nil for the
// process's standard streams (and the file heddle puts in their place
// while it keeps the runs' output, explore.OutputFilePrefix).
func fileObj(name string) unsafe.Pointer {
	switch name {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return nil
	}
	if len(name) > 0 && name[0] == '|' {
		name = "|" // os.Pipe's ends ("|0", "|1"): one object
	}
	for len(name) > 1 && (name[len(name)-1] == '/' || name[len(name)-1] == os.PathSeparator) {
		name = name[:len(name)-1] // "d/" is d
	}
	i := len(name)
	for i > 0 && name[i-1] != '/' && name[i-1] != os.PathSeparator {
		i--
	}
	if strings.HasPrefix(name[i:], explore.OutputFilePrefix) {
		return nil // the process's streams while heddle keeps the runs' output
	}
	h := uint32(2166136261)
	for ; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return unsafe.Pointer(&fileObjs[h%uint32(len(fileObjs))])
}

// fileStep is the step of an access of the file named name.
func fileStep(name string) { objStep(name, engine.OpAtomicWrite) }

// fsStep is the step of an access by name of the file named name, which
// also reads (op is engine.OpFSRead) or writes (engine.OpFSWrite) the
// names of the file tree.
func fsStep(name string, op engine.OpKind) { objStep(name, op) }

// objStep is the step of kind op on the object of the file named name.
func objStep(name string, op engine.OpKind) {
	x := engine.Current()
	if x == nil {
		return
	}
	p := fileObj(name)
	if p == nil {
		return
	}
	if !x.Alone() {
		x.Access(p, op)
	}
	x.ReachOut()
}

// stampSlack is how far before a call's start (read on the real clock)
// a file's modification time may be and still be the call's: the file
// system stamps files with the kernel's coarse clock, a tick behind.
const stampSlack = 20 * time.Millisecond

// stampChanged is called after a call that may have created or truncated
// the file (or directory) name, started at before on the real clock: if
// the call changed the file's modification time (it is within the call's
// time on the real clock), the file is stamped with the run's virtual
// clock (engine.Exec.StampFile), so that the test, which reads that clock,
// sees the file as made when it made it. A file the call left alone (an
// os.OpenFile with O_CREATE of a file that was there) keeps its times. Not
// stamped: the times changed by writes through an open file, the parent
// directories' (whose entries changed), and those of files made by code
// that is not rewritten.
func stampChanged(name string, before time.Time) {
	x := engine.Current()
	if x == nil {
		return
	}
	after := time.Now()
	fi, err := os.Stat(name)
	if err != nil {
		return
	}
	if m := fi.ModTime(); m.Before(before.Add(-stampSlack)) || m.After(after.Add(stampSlack)) {
		return
	}
	x.StampFile(name)
}

// anyStep is the step of an access of v when it is dynamically an
// *os.File.
func anyStep(v any) {
	if f, ok := v.(*os.File); ok && f != nil {
		fileStep(f.Name())
	}
}

// FileW replaces the receiver f of a call of an *os.File method that
// reads or writes the file or moves its offset (Read, Write, Seek, Close,
// ...): the call is a step, an atomic write of the file, then the method
// runs on f.
func FileW(f *os.File) *os.File {
	if f != nil {
		fileStep(f.Name())
	}
	return f
}

// FileI replaces the receiver x, of an interface type or a type
// parameter, of a call of a method named as one of FileW's (w.Write on an
// io.Writer): when x is dynamically an *os.File, the call is FileW's
// step. x is returned as it is.
func FileI[T any](x T) T {
	anyStep(x)
	return x
}

// FileKeep replaces an argument that is, or may dynamically be, an
// *os.File, of a call of the standard library that keeps its io.Writer or
// io.Reader to use it later (bufio.NewWriter, log.New, ...): those later
// reads and writes are no steps, so the run counts one unstepped file
// (engine.Result.Unstepped). x is returned as it is.
func FileKeep[T any](x T) T {
	f, ok := any(x).(*os.File)
	if !ok {
		f = embeddedFile(reflect.ValueOf(any(x)), 0)
	}
	if f != nil && fileObj(f.Name()) != nil {
		if e := engine.Current(); e != nil {
			e.Unstepped()
		}
	}
	return x
}

// embeddedFile returns the *os.File that v, a struct or a pointer to one,
// embeds (as *os.File or os.File, directly or through embedded structs,
// as deep as the rewriter looks: mayBeFile), whose promoted methods the
// standard library would call in no step; or nil.
func embeddedFile(v reflect.Value, depth int) *os.File {
	if depth > 3 || !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.Anonymous {
			continue
		}
		fv := v.Field(i)
		switch {
		case sf.Type == fileType:
			if f := (*os.File)(fv.UnsafePointer()); f != nil {
				return f
			}
		case sf.Type == fileType.Elem():
			if fv.CanAddr() {
				return (*os.File)(fv.Addr().UnsafePointer())
			}
			if fv.CanInterface() {
				f := fv.Interface().(os.File)
				return &f
			}
		default:
			if f := embeddedFile(fv, depth+1); f != nil {
				return f
			}
		}
	}
	return nil
}

var fileType = reflect.TypeOf((*os.File)(nil))

// FileWriter replaces an argument of a call of the standard library that
// keeps an io.Writer to write it later, in code heddle does not rewrite,
// and looks at its dynamic type only for io.StringWriter, io.ReaderFrom or
// its own types (bufio.NewWriter, json.NewEncoder, csv.NewWriter,
// gzip.NewWriter, ...: the rewriter's fileWriterCalls). When w is an
// *os.File other than the standard streams, the call gets a keptFile in
// its place, whose writes are the file's steps; a value embedding such a
// file gets a keptEmbedded, whose writes are the file's steps too;
// otherwise w itself.
func FileWriter(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		if f := embeddedFile(reflect.ValueOf(w), 0); f != nil && fileObj(f.Name()) != nil {
			return &keptEmbedded{w: w, name: f.Name()}
		}
		return w
	}
	if f == nil || fileObj(f.Name()) == nil {
		return w
	}
	return &keptFile{f: f}
}

// keptEmbedded is a value embedding an *os.File (or an os.File), kept by
// the standard library as an io.Writer: its Write is the file's, promoted
// (or the value's own, which writes the file or not), called in code
// heddle does not rewrite. Each write is a step on the file, then w's
// own method. It hides w's other methods: bufio.Writer then copies a
// ReadFrom through Write, the same bytes.
type keptEmbedded struct {
	w    io.Writer
	name string
}

func (k *keptEmbedded) Write(p []byte) (int, error) {
	fileStep(k.name)
	return k.w.Write(p)
}

func (k *keptEmbedded) WriteString(s string) (int, error) {
	fileStep(k.name)
	if sw, ok := k.w.(io.StringWriter); ok {
		return sw.WriteString(s)
	}
	return k.w.Write([]byte(s))
}

// keptFile is an *os.File kept by the standard library as an io.Writer:
// each write is the file's step (FileW's), then the file's own method.
// It has the file's io.StringWriter and io.ReaderFrom, which bufio.Writer
// looks for, so the writes reach the file as they would without it.
type keptFile struct{ f *os.File }

func (k *keptFile) Write(p []byte) (int, error) {
	fileStep(k.f.Name())
	return k.f.Write(p)
}

func (k *keptFile) WriteString(s string) (int, error) {
	fileStep(k.f.Name())
	return k.f.WriteString(s)
}

func (k *keptFile) ReadFrom(r io.Reader) (int64, error) {
	fileStep(k.f.Name())
	return k.f.ReadFrom(r)
}

// Fprint replaces fmt.Fprint.
func Fprint(w io.Writer, a ...any) (int, error) {
	anyStep(w)
	return fmt.Fprint(w, a...)
}

// Fprintf replaces fmt.Fprintf.
func Fprintf(w io.Writer, format string, a ...any) (int, error) {
	anyStep(w)
	return fmt.Fprintf(w, format, a...)
}

// Fprintln replaces fmt.Fprintln.
func Fprintln(w io.Writer, a ...any) (int, error) {
	anyStep(w)
	return fmt.Fprintln(w, a...)
}

// Print replaces fmt.Print: a step when os.Stdout is not the process's
// (an example's output is a pipe).
func Print(a ...any) (int, error) {
	fileStep(os.Stdout.Name())
	return fmt.Print(a...)
}

// Printf replaces fmt.Printf.
func Printf(format string, a ...any) (int, error) {
	fileStep(os.Stdout.Name())
	return fmt.Printf(format, a...)
}

// Println replaces fmt.Println.
func Println(a ...any) (int, error) {
	fileStep(os.Stdout.Name())
	return fmt.Println(a...)
}

// Fscan replaces fmt.Fscan.
func Fscan(r io.Reader, a ...any) (int, error) {
	anyStep(r)
	return fmt.Fscan(r, a...)
}

// Fscanf replaces fmt.Fscanf.
func Fscanf(r io.Reader, format string, a ...any) (int, error) {
	anyStep(r)
	return fmt.Fscanf(r, format, a...)
}

// Fscanln replaces fmt.Fscanln.
func Fscanln(r io.Reader, a ...any) (int, error) {
	anyStep(r)
	return fmt.Fscanln(r, a...)
}

// WriteString replaces io.WriteString.
func WriteString(w io.Writer, s string) (int, error) {
	anyStep(w)
	return io.WriteString(w, s)
}

// ReadAll replaces io.ReadAll.
func ReadAll(r io.Reader) ([]byte, error) {
	anyStep(r)
	return io.ReadAll(r)
}

// ReadFull replaces io.ReadFull.
func ReadFull(r io.Reader, buf []byte) (int, error) {
	anyStep(r)
	return io.ReadFull(r, buf)
}

// ReadAtLeast replaces io.ReadAtLeast.
func ReadAtLeast(r io.Reader, buf []byte, min int) (int, error) {
	anyStep(r)
	return io.ReadAtLeast(r, buf, min)
}

// copyStep is the step of a copy between dst and src. A copy to or from a
// file may take several reads and writes of it, interleaved natively with
// the other side's: only one step is taken, so the file also counts as
// kept (FileKeep).
func copyStep(dst io.Writer, src io.Reader) {
	anyStep(dst)
	anyStep(src)
	FileKeep(dst)
	FileKeep(src)
}

// Copy replaces io.Copy.
func Copy(dst io.Writer, src io.Reader) (int64, error) {
	copyStep(dst, src)
	return io.Copy(dst, src)
}

// CopyN replaces io.CopyN.
func CopyN(dst io.Writer, src io.Reader, n int64) (int64, error) {
	copyStep(dst, src)
	return io.CopyN(dst, src, n)
}

// CopyBuffer replaces io.CopyBuffer.
func CopyBuffer(dst io.Writer, src io.Reader, buf []byte) (int64, error) {
	copyStep(dst, src)
	return io.CopyBuffer(dst, src, buf)
}

// ReadFile replaces os.ReadFile: a step on the object of the file's name,
// which reads the tree's names.
func ReadFile(name string) ([]byte, error) {
	fsStep(name, engine.OpFSRead)
	return os.ReadFile(name)
}

// WriteFile replaces os.WriteFile: os.WriteFile's body, whose creation
// (or truncation) and write are two steps, as a reader by name can see
// the file empty between them. The first may make the name.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	fsStep(name, engine.OpFSWrite)
	before := time.Now()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	fileStep(name)
	_, err = f.Write(data)
	if err1 := f.Close(); err1 != nil && err == nil {
		err = err1
	}
	stampChanged(name, before)
	return err
}

// Create replaces os.Create: a step on the object of the file's name (it
// creates or truncates the file), which may make the name.
func Create(name string) (*os.File, error) {
	fsStep(name, engine.OpFSWrite)
	before := time.Now()
	f, err := os.Create(name)
	if err == nil {
		stampChanged(name, before)
	}
	return f, err
}

// Open replaces os.Open: whether the file is there depends on the
// goroutines that create or remove it.
func Open(name string) (*os.File, error) {
	fsStep(name, engine.OpFSRead)
	return os.Open(name)
}

// OpenFile replaces os.OpenFile: with os.O_CREATE it may make the name.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	op := engine.OpFSRead
	if flag&os.O_CREATE != 0 {
		op = engine.OpFSWrite
	}
	fsStep(name, op)
	if flag&(os.O_CREATE|os.O_TRUNC) == 0 {
		return os.OpenFile(name, flag, perm)
	}
	before := time.Now()
	f, err := os.OpenFile(name, flag, perm)
	if err == nil {
		stampChanged(name, before)
	}
	return f, err
}

// Remove replaces os.Remove.
func Remove(name string) error {
	fsStep(name, engine.OpFSWrite)
	return os.Remove(name)
}

// Rename replaces os.Rename: one step, which writes the tree's names
// (and the object of the new name). It changes no file's contents: the
// old name's object is not written, an access of it by name reads the
// tree's names. (It was a step on each name's object: an access by name
// of the old one was ordered with the first step, not with the rename.)
func Rename(oldpath, newpath string) error {
	fsStep(newpath, engine.OpFSWrite)
	return os.Rename(oldpath, newpath)
}

// Truncate replaces os.Truncate.
func Truncate(name string, size int64) error {
	fsStep(name, engine.OpFSRead)
	before := time.Now()
	err := os.Truncate(name, size)
	if err == nil {
		stampChanged(name, before)
	}
	return err
}

// Stat replaces os.Stat: whether the file is there, and what it holds,
// depends on the goroutines that create, write or remove it (conform
// TestFSRemoveVsStat).
func Stat(name string) (os.FileInfo, error) {
	fsStep(name, engine.OpFSRead)
	return os.Stat(name)
}

// Lstat replaces os.Lstat.
func Lstat(name string) (os.FileInfo, error) {
	fsStep(name, engine.OpFSRead)
	return os.Lstat(name)
}

// Mkdir replaces os.Mkdir: of two goroutines making one directory, either
// may fail (conform TestFSMkdirRace).
func Mkdir(name string, perm os.FileMode) error {
	fsStep(name, engine.OpFSWrite)
	before := time.Now()
	err := os.Mkdir(name, perm)
	if err == nil {
		stampChanged(name, before)
	}
	return err
}

// MkdirAll replaces os.MkdirAll, RemoveAll os.RemoveAll and ReadDir
// os.ReadDir: a step on the object of the name they are given, as Mkdir,
// Remove and Stat (conform TestFSMkdirAllVsStat, TestFSRemoveAllVsStat),
// which writes (MkdirAll, RemoveAll) or reads (ReadDir) the tree's names:
// so the other names they touch (the parents MkdirAll makes, what
// RemoveAll removes and ReadDir lists under the directory) are ordered
// with every other step on names (TestFSReadDirVsCreate,
// TestFSReadDirVsRemoveAll, TestFSRemoveAllVsReadDirSub).
func MkdirAll(name string, perm os.FileMode) error {
	fsStep(name, engine.OpFSWrite)
	before := time.Now()
	err := os.MkdirAll(name, perm)
	if err == nil {
		stampChanged(name, before)
	}
	return err
}

// RemoveAll replaces os.RemoveAll (see MkdirAll). Natively it removes
// a directory's entries, one by one, then the directory: a listing
// between them sees the directory empty (conform
// TestFSReadDirVsRemoveAll, "entries 0, error false"). So does
// RemoveAll, each removal a step: removeAll.
func RemoveAll(name string) error {
	x := engine.Current()
	if x == nil || x.Alone() || name == "" || endsWithDot(name) {
		return os.RemoveAll(name) // no step, or its error
	}
	return removeAll(name)
}

// removeAll removes name and what it holds: as os.RemoveAll, first by
// os.Remove, and when name is a directory that is not empty, each of its
// entries, then the directory, each a step writing the tree's names.
// The last removal is os.RemoveAll's (it removes what was made in the
// directory since it was listed, as os.RemoveAll retries).
func removeAll(name string) error {
	fsStep(name, engine.OpFSWrite)
	err := os.Remove(name)
	if err == nil || os.IsNotExist(err) {
		return nil
	}
	fi, lerr := os.Lstat(name)
	if lerr != nil || !fi.IsDir() {
		return os.RemoveAll(name)
	}
	var first error
	if f, err := os.Open(name); err == nil {
		ns, _ := f.Readdirnames(-1)
		f.Close()
		for _, n := range ns {
			if err := removeAll(name + string(os.PathSeparator) + n); err != nil && first == nil {
				first = err
			}
		}
	}
	fsStep(name, engine.OpFSWrite)
	if err := os.RemoveAll(name); err != nil && first == nil {
		first = err
	}
	return first
}

// endsWithDot reports whether path's last element is "." or "..", which
// os.RemoveAll refuses.
func endsWithDot(path string) bool {
	if path == "." {
		return true
	}
	if len(path) >= 2 && path[len(path)-1] == '.' && os.IsPathSeparator(path[len(path)-2]) {
		return true
	}
	return path == ".." || len(path) >= 3 && path[len(path)-2:] == ".." && os.IsPathSeparator(path[len(path)-3])
}

// ReadDir replaces os.ReadDir (see MkdirAll). Natively a listing is
// an open of the directory, then reads of its entries (getdents on
// Linux) until one reads none. The entries are read in the directory's
// order, from a position the reads keep, and a name made or moved behind
// that position meanwhile is not seen: a rename within the directory
// during a listing can leave both names out (conform
// TestFSRenameVsReadDir: natively "entries []", 1 run in 3,226). On
// Linux, a read of a directory removed since it was opened fails
// (ENOENT), and os.ReadDir returns the entries read before with the
// error. So a listing is three steps: the open, at which the directory
// is listed (os.ReadDir, and an open of it kept for the others); the
// reads, at which the listing keeps the entries that are still there (a
// name made since the open is behind the position; one removed or moved
// away is not read), or fails if the directory has been removed
// (dirRemoved); and the last read, at which, if the directory has been
// removed, ReadDir returns the entries with the error of that read
// (conform TestFSReadDirVsRemoveAll: natively "entries 1, error true",
// RemoveAll between the reads).
func ReadDir(name string) ([]os.DirEntry, error) {
	fsStep(name, engine.OpFSRead)
	es, err := os.ReadDir(name)
	if err != nil || !dirRemovable {
		return es, err
	}
	// The run is looked up after the call: a goroutine detached in it (a
	// system call that took long, detach.go) comes back here.
	if x := engine.Current(); x == nil || x.Alone() {
		return es, err
	}
	d, err := os.Open(name)
	if err != nil {
		// Removed by a goroutine heddle does not control (a goroutine
		// of its own is not in a step): as if before the first read.
		return es, nil
	}
	defer d.Close()
	removed := &os.PathError{Op: "readdirent", Path: name, Err: syscall.ENOENT}
	fsStep(name, engine.OpFSRead)
	if dirRemoved(d) {
		return nil, removed
	}
	es = stillThere(es, d)
	fsStep(name, engine.OpFSRead)
	if dirRemoved(d) {
		return es, removed
	}
	return es, nil
}

// stillThere returns the entries of es whose names the directory open as
// d holds now, in es's order. If d cannot be read, es.
func stillThere(es []os.DirEntry, d *os.File) []os.DirEntry {
	names, err := d.Readdirnames(-1)
	if err != nil {
		return es
	}
	there := make(map[string]bool, len(names))
	for _, n := range names {
		there[n] = true
	}
	kept := es[:0:0]
	for _, e := range es {
		if there[e.Name()] {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(es) {
		return es
	}
	return kept
}
