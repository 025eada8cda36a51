package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// The temporary files and directories heddle makes for its workers and
// its checks (heddle-worker-*, heddle-yield-*, heddle-events-*, and
// heddle-confirm-*, heddle-racy-* of confirm.go and racy.go) are removed by the
// code that made them when it is done; a heddle killed meanwhile (SIGKILL
// from a harness's timeout, the kernel's or Go's out of memory) runs no
// such code. So heddle starts, with the first of them, a reaper: a
// process of its own (heddle __reap), in its own process group (a kill of
// heddle's group spares it), told through a pipe each path made and
// removed. When the pipe ends, heddle is gone: the reaper removes the
// paths left and exits. After a normal end none are left.

// reaper is heddle's end of the pipe to its reaper process, started on
// the first path tracked. Its state is the process's, as the children
// it kills at an interrupt (parallel.go) are.
var reaper struct {
	sync.Mutex
	w       io.WriteCloser // nil before the start, or if it failed
	started bool
}

// reapCommand is the hidden command of the reaper process.
const reapCommand = "__reap"

// trackTemp tells the reaper about path, made by heddle: it removes it if
// heddle dies before untrackTemp(path). Best effort: without a reaper
// (it could not start), nothing is removed.
func trackTemp(path string) { tellReaper('+', path) }

// untrackTemp tells the reaper path was removed (or is kept on purpose).
func untrackTemp(path string) { tellReaper('-', path) }

func tellReaper(op byte, path string) {
	if strings.ContainsAny(path, "\n") {
		return
	}
	reaper.Lock()
	defer reaper.Unlock()
	if !reaper.started {
		reaper.started = true
		if op == '-' {
			return
		}
		reaper.w = startReaper()
	}
	if reaper.w == nil {
		return
	}
	if _, err := io.WriteString(reaper.w, string(op)+path+"\n"); err != nil {
		reaper.w.Close()
		reaper.w = nil
	}
}

// startReaper starts heddle __reap and returns its standard input (nil if
// it could not start).
func startReaper() io.WriteCloser {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	// argv[0] "heddle": the command's name (a test binary dispatches on
	// it, cmd/heddle's scripts).
	cmd := &exec.Cmd{Path: exe, Args: []string{"heddle", reapCommand}, Stdin: r}
	reaperAttr(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil
	}
	r.Close()
	go cmd.Wait() // no zombie once it exits
	return w
}

// cmdReap is the reaper: it reads "+path" and "-path" lines until its
// standard input ends, then removes the paths still tracked. It removes
// them once more a moment later: the test binaries heddle started die
// with it (childAttr) but may write a file or two meanwhile.
func cmdReap(in io.Reader) int {
	paths := map[string]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		l := sc.Text()
		if len(l) < 2 {
			continue
		}
		switch l[0] {
		case '+':
			paths[l[1:]] = true
		case '-':
			delete(paths, l[1:])
		}
	}
	if len(paths) == 0 {
		return exitOK
	}
	for i := 0; i < 2; i++ {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		for p := range paths {
			os.RemoveAll(p)
		}
	}
	return exitOK
}
