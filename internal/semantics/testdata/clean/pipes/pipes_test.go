// Package pipes: io.Pipe, net.Pipe and os.Pipe between two of the test's
// goroutines. They block inside the standard library, which heddle does
// not rewrite.
package pipes

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestIOPipe(t *testing.T) {
	r, w := io.Pipe()
	go func() {
		defer w.Close()
		for _, s := range []string{"a", "b", "c"} {
			io.WriteString(w, s+"\n")
		}
	}()
	var got []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if strings.Join(got, "") != "abc" {
		t.Fatalf("read %q", got)
	}
}

func TestIOPipeJSON(t *testing.T) {
	r, w := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- json.NewEncoder(w).Encode(map[string]int{"n": 1})
		w.Close()
	}()
	var v map[string]int
	if err := json.NewDecoder(r).Decode(&v); err != nil || v["n"] != 1 {
		t.Fatalf("decode: %v %v", v, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// The reader closes the pipe while the writer may be blocked in Write.
func TestIOPipeCloseWithError(t *testing.T) {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	r.CloseWithError(io.ErrClosedPipe)
	wg.Wait()
}

func TestNetPipe(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		line, err := bufio.NewReader(server).ReadString('\n')
		if err != nil {
			return
		}
		server.Write([]byte("echo " + line))
	}()
	if _, err := client.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	reply, err := bufio.NewReader(client).ReadString('\n')
	if err != nil || reply != "echo ping\n" {
		t.Fatalf("reply %q, %v", reply, err)
	}
	client.Close()
}

func TestOSPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	w.WriteString("hello")
	w.Close()
	if s := <-done; s != "hello" {
		t.Fatalf("read %q", s)
	}
}
