package files

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"text/tabwriter"
)

// Writes through io.Writer: a step when the writer is dynamically an
// *os.File (rt.Fprint, rt.FileI); files kept by the standard library are
// counted (rt.FileKeep); other values are left alone.
func writes(f *os.File, w io.Writer, c io.Closer, b *bytes.Buffer, sb *strings.Builder) {
	fmt.Fprint(f, "a")
	fmt.Fprintf(w, "%d", 1)
	fmt.Fprintln(b, "b")
	fmt.Fprintf(sb, "c")
	io.WriteString(w, "d")
	io.Copy(w, strings.NewReader("e"))
	w.Write([]byte("f"))
	defer c.Close()
	go fmt.Fprint(f, "g")
	go w.Write(nil)
	bw := bufio.NewWriter(f)
	bw.WriteString("h")
	bw.Flush()
	bufio.NewWriter(b)
	bufio.NewReader(w.(io.Reader))
	log.New(w, "", 0)
	json.NewEncoder(f).Encode(1)
	data, _ := os.ReadFile(f.Name())
	os.WriteFile(f.Name(), data, 0o600)
	write := fmt.Fprint
	write(w, "i")
	fmt.Println("j")
}

func deferred(f *os.File, w io.Writer) {
	defer f.Close()
	defer w.Write(nil)
	defer fmt.Fprint(w, "x")
	var n atomic.Int32
	defer n.Add(1)
}

// net.Pipe is replaced by heddle's model, as a call and as a value.
func pipes() {
	a, b := net.Pipe()
	a.Write([]byte("x"))
	b.Close()
	mk := net.Pipe
	mk()
}

// Method values and expressions of an interface's file methods, and a
// receiver of a type parameter.
func values[W io.WriteCloser](w io.Writer, wc W) {
	write := w.Write
	write(nil)
	expr := io.Writer.Write
	expr(w, nil)
	wc.Write(nil)
	defer wc.Close()
}

// Writers of the standard library that keep an io.Writer and only write
// it get rt.FileWriter; log.New and readers keep rt.FileKeep.
func keptWriters(f *os.File, w io.Writer, bw *bufio.Writer) {
	gz := gzip.NewWriter(f)
	gz.Reset(w)
	bw.Reset(f)
	csv.NewWriter(w)
	tabwriter.NewWriter(f, 0, 8, 1, ' ', 0)
	log.New(f, "", 0)
	bufio.NewScanner(f)
}

// Directories: os.MkdirAll, os.RemoveAll and os.ReadDir are steps on the
// name's object; reading a directory through its file too.
func dirs(f *os.File) {
	os.MkdirAll("a/b", 0o755)
	os.ReadDir("a")
	f.Readdirnames(-1)
	os.RemoveAll("a")
}

type logFile struct {
	*os.File
	lines int
}

// A file stored into an interface field of a standard library value, and
// a struct embedding a file passed to the standard library, are counted
// (rt.FileKeep); a field of a package's own struct is left alone.
func stored(f *os.File, w io.Writer, lf *logFile) {
	cmd := exec.Command("true")
	cmd.Stdout = f
	cmd.Stderr, cmd.Dir = w, "."
	_ = &exec.Cmd{Path: "true", Stdout: lf, Stderr: os.Stderr}
	bufio.NewWriter(lf)
	mine := struct{ out io.Writer }{}
	mine.out = f
}
