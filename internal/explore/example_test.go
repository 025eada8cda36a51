package explore

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// fdID identifies the file that descriptor fd refers to.
func fdID(fd int) string {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err.Error()
	}
	return fmt.Sprint(st.Dev, " ", st.Ino)
}

// TestExampleKeepsStdout checks that exploring examples leaves the
// binary's standard output open. Example once wrapped descriptor 1 in a
// new os.File per example; unreachable after its example, that File was
// closed by its finalizer, which closed descriptor 1: a later example's
// pipe or file took the number, and go test's copy of an example's output
// waited forever (Code-Hex/go-generics-cache's policy/simple).
func TestExampleKeepsStdout(t *testing.T) {
	before := fdID(1)
	saved := os.Stdout
	defer func() { os.Stdout = saved }()
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout = w // as go test's runExample does
		Example(fmt.Sprintf("TestExampleKeepsStdout_%d", i), "x\n", false, func() { fmt.Println("x") })
		os.Stdout = saved
		w.Close()
		r.Close()
	}
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizers run
	}
	if after := fdID(1); after != before {
		t.Fatalf("descriptor 1 is no longer the binary's output after the examples: %s, was %s", after, before)
	}
}
