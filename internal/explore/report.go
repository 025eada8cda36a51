package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// report handles a bug found by run: it writes the schedule at once, replays
// it with full recording to build the report, and reports it on the test.
// It returns false when the bug is filtered out or was reported already.
func (x *explorer) report(run int, res *engine.Result, rs *runT, bug *engine.Bug) bool {
	x.t.Helper()
	keys := choiceKeys(res.Choices)
	path, werr := x.writeSchedule(run, bug, keys)

	// Reproduce with recording, for positions and the trace.
	rs2 := &runT{TB: x.t}
	res2 := x.exec(engine.Config{Seed: x.randSeed(x.strat, run), Record: true}, strategy.NewReplay(keys), rs2)
	bug2 := classify(res2, rs2)
	if bug2 != nil && bug.Kind == engine.KindNondeterminism && bug2.Kind == bug.Kind {
		// Keep the finding's own words: which check saw the divergence.
		b := *bug2
		b.Message = bug.Message
		bug2 = &b
	}
	if (bug.Kind == engine.KindRace || bug.Message == realFailureMessage) && bug2 == nil {
		// The detector reports a race once; the replay ran the same
		// schedule, which is what the report needs.
		bug2 = bug
	}
	note := ""
	if bug2 == nil || bug2.Kind != bug.Kind {
		note = "note: replaying the schedule did not reproduce this bug: the test is nondeterministic by itself"
		res2, rs2, bug2 = res, rs, bug
	}
	if bug2.Kind == engine.KindLeak && x.ignoredLeak(bug2) {
		if path != "" {
			os.Remove(path)
		}
		return false
	}
	key := bug2.Kind + " " + x.where(bug2)
	if x.seen[key] {
		return false
	}
	x.seen[key] = true
	x.bugs++
	if werr == nil && note == "" {
		x.recordPlace(path, bug2, res2.Steps)
	}

	var b strings.Builder
	x.render(&b, run, res2, rs2, bug2)
	if note != "" {
		fmt.Fprintln(&b, note)
	}
	replay := ""
	if werr != nil {
		fmt.Fprintf(&b, "schedule: not written: %v\n", werr)
	} else {
		replay = "heddle replay " + path
		fmt.Fprintf(&b, "schedule: %s\nreplay:   %s\n", path, replay)
	}
	text := b.String()
	x.emit(event.Event{Action: event.Bug, Kind: bug2.Kind, Message: bug2.Message, Run: run, Steps: res2.Steps, Schedule: path, Report: text, Replay: replay})
	x.t.Error("\n" + text)
	return true
}

// replayed reports the outcome of a replay.
func (x *explorer) replayed(res *engine.Result, rs *runT) {
	x.t.Helper()
	if x.cfg.Verbose {
		var b strings.Builder
		x.steps(&b, res, 0)
		x.emit(event.Event{Action: event.Output, Output: b.String()})
		fmt.Print(b.String())
	}
	bug := classify(res, rs)
	if bug == nil {
		bug = x.realFailure(res)
	}
	if bug == nil && engine.RaceErrors() > x.races {
		bug = &engine.Bug{Kind: engine.KindRace, Message: "data race: the race detector's report (WARNING: DATA RACE) is printed above", G: res.Gs[0]}
	}
	if bug == nil {
		x.t.Log("heddle: the schedule ran to completion and the bug did not reproduce")
		return
	}
	x.bugs++
	var b strings.Builder
	x.render(&b, 1, res, rs, bug)
	text := b.String()
	x.emit(event.Event{Action: event.Bug, Kind: bug.Kind, Message: bug.Message, Run: 1, Steps: res.Steps, Schedule: x.cfg.Replay, Report: text})
	x.t.Error("\n" + text)
}

func (x *explorer) ignoredLeak(b *engine.Bug) bool {
	if len(x.cfg.LeakIgnore) == 0 {
		return false
	}
	for _, g := range b.Blocked {
		at := engine.PositionOf(g.Pending().PC).Func
		from := engine.PositionOf(g.GoPC).Func
		matched := false
		for _, pat := range x.cfg.LeakIgnore {
			if strings.Contains(at, pat) || strings.Contains(from, pat) {
				matched = true
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// where locates a bug, to tell distinct bugs apart.
func (x *explorer) where(b *engine.Bug) string {
	switch b.Kind {
	case engine.KindDeadlock, engine.KindLeak:
		var ps []string
		for _, g := range b.Blocked {
			ps = append(ps, x.pos(g.Pending().PC))
		}
		return strings.Join(ps, ",")
	case engine.KindFail:
		return b.Message
	}
	if b.G != nil {
		return b.G.ID + " " + firstUserFrame(b.Stack)
	}
	return b.Message
}

func firstUserFrame(stack string) string {
	lines := strings.Split(stack, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "heddle.dev/internal/") || strings.HasPrefix(fn, "runtime/debug.") {
			continue
		}
		return strings.TrimSpace(lines[i+1])
	}
	return ""
}

// pos formats a call site as file:line relative to the package directory.
func (x *explorer) pos(pc uintptr) string {
	p := engine.PositionOf(pc)
	if p.File == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", x.rel(p.File), p.Line)
}

func (x *explorer) rel(file string) string {
	if x.cfg.Dir != "" {
		if r, err := filepath.Rel(x.cfg.Dir, file); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return filepath.Base(file)
}

func funcName(pc uintptr) string {
	f := engine.PositionOf(pc).Func
	if i := strings.LastIndex(f, "/"); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// render writes the text report of a bug.
func (x *explorer) render(b *strings.Builder, run int, res *engine.Result, rs *runT, bug *engine.Bug) {
	fmt.Fprintf(b, "heddle: %s in %s (run %d, %d steps, strategy %s, seed %d)\n", x.title(bug.Kind), x.name(), run, res.Steps, x.cfg.Strategy, x.cfg.Seed)
	fmt.Fprintf(b, "  %s\n", bug.Message)
	if bug.Kind == engine.KindFail && len(rs.msgs) > 0 {
		fmt.Fprintln(b, "\ntest output of the failing run:")
		for _, m := range rs.msgs {
			fmt.Fprintf(b, "    %s\n", m)
		}
	}
	if early := earlyFirings(res); early != "" {
		fmt.Fprintf(b, "\n%s\n", early)
	}
	fmt.Fprintln(b, "\ngoroutines:")
	blocked := map[*engine.G]bool{}
	for _, g := range bug.Blocked {
		blocked[g] = true
	}
	type line struct {
		id, text string // the goroutine's id, and what follows it
		more     int    // goroutines with the same text after it (grouped)
	}
	var lines []*line
	for _, g := range res.Gs {
		if g.System {
			continue
		}
		origin := x.g0Origin()
		if g.Index > 0 {
			origin = "created at " + x.pos(g.GoPC)
			if fn := funcName(g.GoPC); fn != "" {
				origin += " in " + fn
			}
		}
		state := "finished"
		switch {
		case blocked[g]:
			op := g.Pending()
			state = fmt.Sprintf("blocked forever: %s at %s", describe(op), x.pos(op.PC))
			if fn := funcName(op.PC); fn != "" {
				state += " in " + fn
			}
		case bug.G == g && (bug.Kind == engine.KindPanic || bug.Kind == engine.KindMisuse):
			state = "failed here"
		case bug.G == g && bug.Kind == engine.KindFail && bug.Stack != "" && strings.HasPrefix(bug.Message, "exit status "):
			state = "called os.Exit here"
		case !g.Done():
			op := g.Pending()
			state = fmt.Sprintf("at %s at %s", describe(op), x.pos(op.PC))
		}
		lines = append(lines, &line{id: g.ID, text: origin + "; " + state})
	}
	if len(lines) > groupAbove {
		// Thousands of goroutines: one line for each kind, the first
		// goroutine of the kind named, in creation order.
		first := map[string]*line{}
		var grouped []*line
		for _, l := range lines {
			if f := first[l.text]; f != nil {
				f.more++
				continue
			}
			first[l.text] = l
			grouped = append(grouped, l)
		}
		lines = grouped
	}
	for _, l := range lines {
		if l.more > 0 {
			fmt.Fprintf(b, "  %-8s (and %d more) %s\n", l.id, l.more, l.text)
		} else {
			fmt.Fprintf(b, "  %-8s %s\n", l.id, l.text)
		}
	}
	if bug.Stack != "" && bug.Kind != engine.KindDeadlock && bug.Kind != engine.KindLeak {
		fmt.Fprintf(b, "\nstack of %s:\n", gid(bug.G))
		for _, l := range strings.Split(strings.TrimRight(trimStack(bug.Stack), "\n"), "\n") {
			fmt.Fprintf(b, "    %s\n", l)
		}
	}
	x.mainOutput(b)
	fmt.Fprintln(b)
	x.steps(b, res, 40)
}

// groupAbove is the number of goroutines above which a report lists the
// goroutines of the same origin and state on one line: a test of ten
// thousand goroutines would otherwise make a report of megabytes.
const groupAbove = 64

func trimStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "heddle.dev/internal/") || strings.HasPrefix(l, "runtime/debug.") || strings.HasPrefix(l, "heddle.dev/rt.") ||
			strings.HasPrefix(l, "created by heddle.dev/internal/") {
			i++ // and its file line
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// maxEnabledShown is how many of a step's enabled choices a report lists;
// the whole trace (heddle replay -v, max 0) lists them all.
const maxEnabledShown = 16

// steps writes the trace, the last max steps of it if max > 0.
func (x *explorer) steps(b *strings.Builder, res *engine.Result, max int) {
	tr := res.Trace
	from := 0
	if max > 0 && len(tr) > max {
		from = len(tr) - max
		fmt.Fprintf(b, "steps (the last %d of %d):\n", max, len(tr))
	} else {
		fmt.Fprintf(b, "steps:\n")
	}
	for _, s := range tr[from:] {
		who := gid(s.G)
		what := s.Kind.String()
		if s.Case >= 0 {
			what += fmt.Sprintf(" case %d", s.Case)
		}
		if s.Timer != "" {
			what += " " + s.Timer
		}
		where := ""
		if s.PC != 0 {
			where = x.pos(s.PC)
		}
		choice := ""
		if s.Enabled.Len() > 1 {
			en := s.Enabled.Strings()
			if max > 0 && len(en) > maxEnabledShown {
				en = append(en[:maxEnabledShown:maxEnabledShown], fmt.Sprintf("and %d more", len(en)-maxEnabledShown))
			}
			choice = "  [" + strings.Join(en, " ") + "]"
		}
		fmt.Fprintf(b, "  %5d  %-8s %-16s %s%s\n", s.N, who, what, where, choice)
	}
}

func describe(op engine.Op) string {
	switch op.Kind {
	case engine.OpSend:
		return "send on channel"
	case engine.OpRecv:
		return "receive from channel"
	case engine.OpSelect:
		return "select"
	case engine.OpLock, engine.OpWLock, engine.OpWLockWait:
		return "Lock"
	case engine.OpRLock:
		return "RLock"
	case engine.OpWGWait:
		return "WaitGroup.Wait"
	case engine.OpCondBlocked:
		return "Cond.Wait"
	case engine.OpOnce:
		return "Once.Do"
	case engine.OpSleep:
		return "Sleep"
	case engine.OpBlock:
		return "select {}"
	}
	return op.Kind.String()
}

func kindTitle(k string) string {
	switch k {
	case engine.KindDeadlock:
		return "DEADLOCK"
	case engine.KindLeak:
		return "GOROUTINE LEAK"
	case engine.KindPanic:
		return "PANIC"
	case engine.KindFail:
		return "TEST FAILED"
	case engine.KindMisuse:
		return "MISUSE"
	case engine.KindStepLimit:
		return "STEP BOUND EXCEEDED"
	case engine.KindNondeterminism:
		return "NONDETERMINISTIC TEST"
	case engine.KindBlocked:
		return "BLOCKED OUTSIDE HEDDLE'S CONTROL"
	case engine.KindRace:
		return "DATA RACE"
	}
	return strings.ToUpper(k)
}

func earlyFirings(res *engine.Result) string {
	var out []string
	for _, s := range res.Trace {
		if s.Early > 0 {
			out = append(out, fmt.Sprintf("  step %d: %s fired while other goroutines had been runnable for %v", s.N, firingName(s), s.Early))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "this bug needs a timer to fire early:\n" + strings.Join(out, "\n")
}

func firingName(s engine.Step) string {
	if s.Timer != "" {
		return "timer " + s.Timer
	}
	return "the sleep of " + gid(s.G)
}
