package prog

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"sync"
	"testing"
	"text/tabwriter"
)

// Sixth fidelity audit: an os.File kept by a writer of the standard
// library (json.Encoder, csv.Writer, tabwriter.Writer) that writes it
// later, in package code heddle does not rewrite; two goroutines' writes
// reach the file in either order.

// twoKeptWriters runs write in two goroutines, on one temporary file,
// with "ab" and "cd", and returns what the file holds.
func twoKeptWriters(t *testing.T, write func(f *os.File, s string)) string {
	f, err := os.CreateTemp("", "fid6")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			write(f, s)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(f.Name())
	return string(b)
}

// TestFileJSONEncoderTwoWriters: each goroutine encodes through a
// json.Encoder of its own.
func TestFileJSONEncoderTwoWriters(t *testing.T) {
	got := twoKeptWriters(t, func(f *os.File, s string) {
		json.NewEncoder(f).Encode(s)
	})
	t.Errorf("%q", got)
}

// TestFileCSVWriterTwoWriters: each goroutine writes a record through a
// csv.Writer of its own, which writes at Flush.
func TestFileCSVWriterTwoWriters(t *testing.T) {
	got := twoKeptWriters(t, func(f *os.File, s string) {
		w := csv.NewWriter(f)
		w.Write([]string{s})
		w.Flush()
	})
	t.Errorf("%q", got)
}

// TestFileTabwriterTwoWriters: each goroutine writes through a
// tabwriter.Writer of its own, passed the file as an io.Writer.
func TestFileTabwriterTwoWriters(t *testing.T) {
	got := twoKeptWriters(t, func(f *os.File, s string) {
		var w io.Writer = f
		tw := tabwriter.NewWriter(w, 0, 8, 1, ' ', 0)
		tw.Write([]byte(s + "\tx\n"))
		tw.Flush()
	})
	t.Errorf("%q", got)
}

// countingFile embeds the file: its Write is the file's, promoted.
type countingFile struct {
	*os.File
	n int
}

// TestFileEmbeddedBufioTwoWriters: each goroutine writes through a
// bufio.Writer of its own over a struct that embeds the file. The
// writes, in package bufio through the promoted method, are no steps:
// heddle claims nothing (it used to claim one order).
func TestFileEmbeddedBufioTwoWriters(t *testing.T) {
	got := twoKeptWriters(t, func(f *os.File, s string) {
		w := bufio.NewWriter(&countingFile{File: f})
		w.WriteString(s)
		w.Flush()
	})
	t.Errorf("%q", got)
}
