package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Replaying runs whose goroutines waited in code heddle does not control.
//
// Where the monitor detaches a goroutine (detach.go) and when the goroutine
// comes back are up to real time: an HTTP request to the test's own
// httptest server may take 300µs in one run, so that the monitor never sees
// it waiting, and 2ms in the next, so that it is detached and the other
// goroutines take steps meanwhile; a goroutine may come back before a timer
// fires in one run and after it in the next. A schedule lists the choices
// made where more than one was enabled, and a goroutine that is away is not
// enabled: the replay of such a run saw other points than the recorded run
// and left its schedule (go-limiter's TestNewMiddleware).
//
// So a run records where it detached each goroutine (the step, and how
// many times the goroutine had entered the engine: the detach happens
// between two such entries) and the step at which it came back
// (Result.Detached): the first step whose choices had it, which may come
// long before the step at which it is picked (yamux's sessions over TCP:
// a receive loop back from its read waits while the other goroutines take
// their steps), and a replay given that record (Config.Detached)
// follows it: it detaches the goroutine at the same entry, whether its
// wait is long this time (the monitor detaches only a goroutine that is
// there) or short (the goroutine detaches itself when it enters the engine
// there); it holds a goroutine that came back sooner than in the recorded
// run until the step at which it came back then (it is not enabled until
// then); and at that step it waits for one that is still away, up to
// Config.DetachWait of real time, and says so if it does not come back.

// Detached is where a run detached a goroutine: during step At, after the
// goroutine's Entry-th entry into the engine (G.entries), and the step at
// which it came back (the first step whose choices had its step "native";
// nativeBack), or 0 if it did not.
type Detached struct {
	G     string
	At    int
	Entry uint64
	Back  int
	// In is the function it waited in (the first frame of its stack
	// outside package runtime), when the monitor detached it; "" when it
	// detached itself in a replay (it had come back already). Not
	// recorded in schedules: for messages.
	In string
}

// FormatDetached writes ds for a schedule: "g0.1:9:3:14 g0.2:20:5:0"
// (goroutine, step, entry, step back), or "none": a replay of a run that
// detached no goroutine detaches none either.
func FormatDetached(ds []Detached) string {
	if len(ds) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%d:%d:%d", d.G, d.At, d.Entry, d.Back)
	}
	return b.String()
}

// ParseDetached reads what FormatDetached wrote; the result is not nil.
func ParseDetached(s string) ([]Detached, error) {
	ds := []Detached{}
	if s == "none" {
		return ds, nil
	}
	for _, f := range strings.Fields(s) {
		parts := strings.Split(f, ":")
		if len(parts) != 4 || !strings.HasPrefix(parts[0], "g") {
			return nil, fmt.Errorf("bad detached goroutine %q: want G:STEP:ENTRY:BACK", f)
		}
		at, err1 := strconv.Atoi(parts[1])
		entry, err2 := strconv.ParseUint(parts[2], 10, 64)
		back, err3 := strconv.Atoi(parts[3])
		if err1 != nil || err2 != nil || err3 != nil || at < 0 || back < 0 {
			return nil, fmt.Errorf("bad detached goroutine %q: want G:STEP:ENTRY:BACK", f)
		}
		ds = append(ds, Detached{G: parts[0], At: at, Entry: entry, Back: back})
	}
	return ds, nil
}

// following reports whether the run replays a record of detaches (one
// that may say that the recorded run detached none), at this point of the
// run: a prefix's record (Config.FollowPoints) is followed until the
// strategy has chosen at its points.
//
//go:norace
func (e *Exec) following() bool {
	return e.cfg.Detached != nil && (e.cfg.FollowPoints <= 0 || len(e.res.Choices) < e.cfg.FollowPoints)
}

// armDetach is called, in a replay that follows a record of detaches, when
// g is picked to take a step: if the recorded run detached g during this
// step, g is detached at the same entry into the engine.
//
//go:norace
func (e *Exec) armDetach(g *G) {
	g.replayDetach = 0
	if !e.following() {
		return // past the prefix a record is followed in
	}
	for i := range e.cfg.Detached {
		if d := &e.cfg.Detached[i]; d.At == e.steps && d.G == g.ID {
			g.replayDetach = d.Entry + 1
			return
		}
	}
}

// planned returns the recorded detach that g's current one replays, or
// nil: the one of the same step (a goroutine is detached at most once in
// a step: it takes no more of the step once it is).
//
//go:norace
func (e *Exec) planned(g *G) *Detached {
	cur := e.lastDetach(g)
	if cur == nil {
		return nil
	}
	for i := range e.cfg.Detached {
		if d := &e.cfg.Detached[i]; d.G == g.ID && d.At == cur.At {
			return d
		}
	}
	return nil
}

// lastDetach returns g's last detach of this run, or nil. Called with
// detachMu held, or by the goroutine holding the processor.
//
//go:norace
func (e *Exec) lastDetach(g *G) *Detached {
	for i := len(e.res.Detached) - 1; i >= 0; i-- {
		if d := &e.res.Detached[i]; d.G == g.ID {
			return d
		}
	}
	return nil
}

// backDue reports whether g, detached and back, may take its step
// "native" now: in a replay that follows a record of detaches, not before
// the step at which it came back in the recorded run (never, if it did not
// come back then).
//
//go:norace
func (e *Exec) backDue(g *G) bool {
	if !e.following() {
		return true
	}
	d := e.planned(g)
	return d == nil || d.Back != 0 && d.Back <= e.steps+1
}

// waitPlanned is waitChild in a replay that follows a record of detaches:
// if the next step is the one at which a goroutine still away came back in
// the recorded run, it waits for it (a little at a time, reporting true so
// that the choices are made again), up to Config.DetachWait; then the run
// has left its schedule, and the bug says why.
//
//go:norace
func (e *Exec) waitPlanned() bool {
	var due *G
	var in string
	e.detachMu.Lock()
	for _, g := range e.detachedGs {
		if g.back {
			continue
		}
		for i := len(e.res.Detached) - 1; i >= 0; i-- {
			cur := &e.res.Detached[i]
			if cur.G != g.ID {
				continue
			}
			for j := range e.cfg.Detached {
				if d := &e.cfg.Detached[j]; d.G == g.ID && d.At == cur.At && d.Back == e.steps+1 {
					due, in = g, cur.In
				}
			}
			break
		}
	}
	e.detachMu.Unlock()
	if due == nil {
		return false
	}
	if e.steps != e.childStep {
		e.childStep, e.childWaited = e.steps, 0
	}
	if e.childWaited < e.cfg.DetachWait {
		return e.sleepProgress(&e.childWaited)
	}
	e.res.Bug = e.notBack(due, in, e.childWaited)
	return true
}

// notBack is the bug of a replay in which g, away in code heddle does not
// control (in: where), did not come back within waited of real time where
// the recorded run had it back.
//
//go:norace
func (e *Exec) notBack(g *G, in string, waited time.Duration) *Bug {
	return &Bug{
		Kind: KindNondeterminism,
		Message: fmt.Sprintf("the run diverged from the schedule at step %d: goroutine %s was in %s and had not come back after %v of real time, "+
			"where the recorded run had it back; when such a wait ends is up to the operating system, not to heddle's schedule",
			e.steps+1, g.ID, awayWhat(in), waited.Round(time.Millisecond)),
		G: g,
	}
}

// backInRecord reports whether g, detached, came back in the recorded run
// a replay follows, and where it waited this time.
//
//go:norace
func (e *Exec) backInRecord(g *G) (bool, string) {
	if !e.following() {
		return false, ""
	}
	d, in := e.planned(g), ""
	if cur := e.lastDetach(g); cur != nil {
		in = cur.In
	}
	return d != nil && d.Back != 0, in
}

// awayCause says, for a divergence, which goroutines were in code heddle
// does not control at the time, or were to go there and did not: "" if
// none.
//
//go:norace
func (e *Exec) awayCause() string {
	var causes []string
	e.detachMu.Lock()
	for _, g := range e.detachedGs {
		if !g.back {
			in := ""
			if d := e.lastDetach(g); d != nil {
				in = d.In
			}
			causes = append(causes, "goroutine "+g.ID+" was in "+awayWhat(in))
		}
	}
	e.detachMu.Unlock()
	if e.following() {
		for i := range e.cfg.Detached {
			d := &e.cfg.Detached[i]
			if d.At > e.steps {
				continue
			}
			found := false
			for j := range e.res.Detached {
				if r := &e.res.Detached[j]; r.G == d.G && r.At == d.At {
					found = true
					break
				}
			}
			if !found {
				causes = append(causes, fmt.Sprintf("goroutine %s did not enter code heddle does not control during step %d, as it did in the recorded run", d.G, d.At))
			}
		}
	}
	if len(causes) == 0 {
		return ""
	}
	return strings.Join(causes, "; ")
}

// awayWhat names a wait in code heddle does not control, given the function
// the goroutine waited in (Detached.In).
func awayWhat(in string) string {
	if in == "" {
		return "code heddle does not control (I/O, a lock or a channel of code that is not rewritten)"
	}
	pkg := in
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		if j := strings.IndexByte(pkg[i:], '.'); j >= 0 {
			pkg = pkg[:i+j]
		}
	} else if j := strings.IndexByte(pkg, '.'); j >= 0 {
		pkg = pkg[:j]
	}
	return "real I/O or code heddle does not control (" + pkg + ": " + in + ")"
}

// waitedIn returns the function a goroutine's stack (a block of
// runtime.Stack's dump) waits in: its first frame outside the runtime and
// the packages that only carry a wait (internal/poll, syscall, sync, net's
// file descriptors), or "".
func waitedIn(block string) string {
	for _, line := range strings.Split(block, "\n")[1:] {
		if line == "" || line[0] == '\t' {
			continue
		}
		switch {
		case strings.HasPrefix(line, "runtime."), strings.HasPrefix(line, "internal/"),
			strings.HasPrefix(line, "syscall."), strings.HasPrefix(line, "sync."),
			strings.HasPrefix(line, "net.(*netFD)"), strings.HasPrefix(line, "net.(*conn)"),
			strings.HasPrefix(line, "os.(*File)"), strings.HasPrefix(line, "io."), strings.HasPrefix(line, "bufio."):
			continue
		}
		if i := strings.LastIndexByte(line, '('); i > 0 && strings.HasSuffix(line, ")") {
			return line[:i]
		}
		return line
	}
	return ""
}
