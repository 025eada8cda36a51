package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"heddle.dev/internal/explore"
)

// Served workers (issue 12): the units of one test's split go to worker
// processes that each explore several in turn (explore.Config.Serve), not
// to a process per unit: a unit then costs no process start, no runtime
// and package initialisation, and no heap grown again from nothing. A
// process explores its first unit from its configuration; when a unit
// ends with nothing to report (explore's clean: no bug, verdict or note,
// whose output the test prints when it ends), it writes explore.UnitDone
// on its file descriptor 4 and reads the next unit (an explore.NextUnit)
// from its file descriptor 3. A unit that ends otherwise ends the
// process, as a process per unit does, and its output and exit status
// are that unit's. Each unit has an events file of its own.

// serveUnits reports whether a test's units go to served workers:
// HEDDLE_SERVE=0 starts a process per unit (for measuring), and systems
// without inherited file descriptors (Windows) always do.
func serveUnits(spec runSpec) bool {
	return runtime.GOOS != "windows" && !spec.Main && os.Getenv("HEDDLE_SERVE") != "0"
}

// serverPool holds the worker processes of one test that wait for a unit.
type serverPool struct {
	// maxAge: a process is given no unit once it has run that long
	// (0: no limit), so that a test binary's -timeout, which bounded
	// each unit's process, bounds each served one too: half of it.
	maxAge time.Duration

	mu      sync.Mutex
	idle    []*server
	started int // processes started
}

// server is one served worker process.
type server struct {
	cmd    *exec.Cmd
	units  *os.File      // its file descriptor 3: the next units
	done   chan struct{} // a UnitDone line came
	exited chan struct{} // closed once the process exited and its output was read
	werr   error
	tmp    string // its TMPDIR
	began  time.Time

	mu  sync.Mutex
	out bytes.Buffer // its output since the unit began
}

// run explores spec's unit (spec.Config.Unit) in a process of the pool,
// started if none waits.
func (p *serverPool) run(spec runSpec) (*runResult, error) {
	p.mu.Lock()
	var s *server
	var old []*server
	for len(p.idle) > 0 && s == nil {
		n := len(p.idle)
		s, p.idle = p.idle[n-1], p.idle[:n-1]
		if p.maxAge > 0 && time.Since(s.began) > p.maxAge {
			old, s = append(old, s), nil
		}
	}
	p.mu.Unlock()
	endServers(old)
	first := s == nil
	evf, err := os.CreateTemp("", "heddle-events-*.jsonl")
	if err != nil {
		return nil, err
	}
	evPath := evf.Name()
	evf.Close()
	trackTemp(evPath)
	defer untrackTemp(evPath)
	defer os.Remove(evPath)
	spec.Config.Events = evPath
	spec.Config.Serve = true
	start := time.Now()
	if first {
		if s, err = startServer(spec); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.started++
		p.mu.Unlock()
	} else {
		s.mu.Lock()
		s.out.Reset()
		s.mu.Unlock()
		c := spec.Config
		b, err := json.Marshal(explore.NextUnit{Unit: c.Unit, Runs: c.Runs, Time: c.Time, Yield: c.Yield, Events: c.Events})
		if err != nil {
			return nil, err
		}
		s.units.Write(append(b, '\n')) // on an error the process is gone: exited says so
	}
	res := &runResult{}
	finishEvents := followEvents(spec, evPath, res)
	alive := false
	select {
	case <-s.done:
		alive = true
	case <-s.exited:
	case <-spec.Cancel:
		s.cmd.Process.Kill()
		<-s.exited
	}
	finishEvents()
	res.Elapsed = time.Since(start)
	s.mu.Lock()
	res.Output = s.out.String()
	s.out.Reset()
	s.mu.Unlock()
	if alive {
		p.mu.Lock()
		p.idle = append(p.idle, s)
		p.mu.Unlock()
		return res, nil
	}
	os.RemoveAll(s.tmp)
	untrackTemp(s.tmp)
	if !first && len(res.Events) == 0 && !canceled(spec.Cancel) {
		// It ended between two units, before it read this one (it
		// said done, then could not go on): a new process explores it.
		return p.run(spec)
	}
	if s.werr != nil {
		var ee *exec.ExitError
		if !errors.As(s.werr, &ee) {
			return nil, fmt.Errorf("heddle: running %s: %v", spec.Binary, s.werr)
		}
		res.Failed = true
	}
	return res, nil
}

// processes is the number of worker processes the pool started, or
// units when there is no pool (a process per unit).
func (p *serverPool) processes(units int) int {
	if p == nil {
		return units
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// close ends the processes waiting for a unit: at the end of their
// units each returns from the test and exits.
func (p *serverPool) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	endServers(idle)
}

// endServers ends processes waiting for a unit.
func endServers(ss []*server) {
	for _, s := range ss {
		s.units.Close()
	}
	for _, s := range ss {
		<-s.exited
		os.RemoveAll(s.tmp)
		untrackTemp(s.tmp)
	}
}

// startServer starts the worker process of spec, which explores spec's
// unit first.
func startServer(spec runSpec) (*server, error) {
	tmp, err := os.MkdirTemp("", "heddle-worker-")
	if err != nil {
		return nil, fmt.Errorf("heddle: %v", err)
	}
	trackTemp(tmp)
	cfg, err := json.Marshal(spec.Config)
	if err != nil {
		os.RemoveAll(tmp)
		untrackTemp(tmp)
		return nil, err
	}
	entry, removeCfg, err := explore.ConfigEnv(cfg, "")
	if err != nil {
		os.RemoveAll(tmp)
		untrackTemp(tmp)
		return nil, fmt.Errorf("heddle: the configuration of %s: %v", spec.Package, err)
	}
	var files []*os.File // closed in this process once the child has them
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	outR, outW, err1 := pipe()
	unitsR, unitsW, err2 := pipe()
	doneR, doneW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		removeCfg()
		os.RemoveAll(tmp)
		untrackTemp(tmp)
		return nil, err
	}
	cmd := exec.Command(spec.Binary, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = append(append(append(os.Environ(), spec.Env...), "TMPDIR="+tmp), entry)
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{unitsR, doneW} // 3 and 4
	childAttr(cmd)
	watchSignals()
	s := &server{cmd: cmd, units: unitsW, done: make(chan struct{}, 1), exited: make(chan struct{}), tmp: tmp, began: time.Now()}
	started := make(chan error, 1)
	go func() {
		if lockThreadForChild {
			// The child's death signal fires when the thread that
			// started it ends: this goroutine keeps it until the child
			// is gone.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		err := cmd.Start()
		outW.Close()
		unitsR.Close()
		doneW.Close()
		if err != nil {
			outR.Close()
			doneR.Close()
			unitsW.Close()
			removeCfg()
			started <- fmt.Errorf("heddle: running %s: %v", spec.Binary, err)
			return
		}
		untrack := trackChild(cmd.Process)
		if interrupted.Load() {
			cmd.Process.Signal(os.Interrupt)
		}
		started <- nil
		go func() {
			sc := bufio.NewScanner(doneR)
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) == explore.UnitDone {
					s.done <- struct{}{}
				}
			}
			doneR.Close()
		}()
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
		outR.Close()
		s.werr = cmd.Wait()
		unitsW.Close()
		untrack()
		removeCfg()
		close(s.exited)
	}()
	if err := <-started; err != nil {
		os.RemoveAll(tmp)
		untrackTemp(tmp)
		return nil, err
	}
	return s, nil
}

func canceled(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
