package engine

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"
)

// Kinds of bug.
const (
	KindDeadlock       = "deadlock"
	KindLeak           = "leak"
	KindPanic          = "panic"
	KindFail           = "fail"
	KindMisuse         = "misuse"
	KindStepLimit      = "steplimit"
	KindNondeterminism = "nondeterminism"
	KindBlocked        = "blocked"
	KindRace           = "race"
)

// Kinds lists every kind of bug, for flags and documentation.
var Kinds = []string{KindDeadlock, KindLeak, KindPanic, KindFail, KindMisuse, KindStepLimit, KindNondeterminism, KindBlocked, KindRace}

// Bug is what an oracle found.
type Bug struct {
	Kind    string
	Message string
	G       *G   // the goroutine that failed, or the test goroutine
	Blocked []*G // for deadlocks and leaks: the goroutines blocked forever
	// Running is, for leaks, the goroutines that never ended: still
	// running at the horizon after the test returned, or waiting for a
	// timer past it.
	Running []*G
	Stack   string
	Value   any // the panic value
	// Long is set on a step-bound bug when the run kept making progress
	// over its second half (Exec.long): no goroutine polled (a Gosched,
	// a select's default, a failed TryLock, an unchanged atomic load)
	// and no timer fired (no sleep ended), or, polls and all, goroutines
	// kept seeing what others wrote (an atomic, a sync.Map, a value
	// sent on a channel) or ending, at least once every sixteenth of the
	// half. A long computation, as far as heddle can tell, rather than a
	// livelock (whose goroutines spin on state nobody changes, or are
	// kept alive by timers).
	Long bool
	// Waits and Gap are, on a step-bound bug, what Long was decided on:
	// the polls and timer firings over the second half of the run, and
	// the longest stretch of steps in it without progress.
	Waits, Gap int
	// Clock is set on a step-bound bug of a run ended by its time bound
	// (Config.TimeLimit), not its step bound: the test function had not
	// returned after that much virtual time.
	Clock bool
	// Computing is set on a blocked bug whose goroutine did not block but
	// ran on without reaching a scheduling point until the watchdog's
	// limit (Exec.MarkComputing): a loop that does not end.
	Computing bool
}

//go:norace
func panicMessage(r any) string {
	switch v := r.(type) {
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case string:
		return v
	}
	return fmt.Sprint(r)
}

// chainMessage is the message of a goroutine that died of panic r, whose
// goroutine's panics were chain, the earliest first (panicChain; nil if
// unknown): as Go prints them (runtime.printpanics), each after the
// earlier ones on a line of its own, "panic: " and the value; a value
// panicked again as it was recovered is printed once. heddle's own panic
// values (a FailNow's) are left out.
func chainMessage(r any, chain []any) string {
	if len(chain) < 2 || efaceOf(chain[len(chain)-1]) != efaceOf(r) {
		return panicMessage(r)
	}
	var b strings.Builder
	var last any
	for i, v := range chain {
		if strings.HasPrefix(reflect.TypeOf(v).PkgPath(), "heddle.dev/") {
			continue
		}
		if i > 0 && last != nil && efaceOf(v) == efaceOf(last) {
			continue
		}
		if last != nil {
			b.WriteString("\n\tpanic: ")
		}
		b.WriteString(panicMessage(v))
		last = v
	}
	if last == nil {
		return panicMessage(r)
	}
	return b.String()
}

// eface is the layout of an empty interface value: its type word and its
// data word. Two values with the same words are the same value.
type eface struct{ typ, data uintptr }

func efaceOf(v any) eface { return *(*eface)(unsafe.Pointer(&v)) }

var misusePanics = []string{
	"close of closed channel",
	"close of nil channel",
	"send on closed channel",
	"sync: negative WaitGroup counter",
	"sync: unlock of unlocked mutex",
	"sync: RUnlock of unlocked RWMutex",
	"sync: Unlock of unlocked RWMutex",
	"sync: WaitGroup is reused before previous Wait has returned",
	"sync.Cond.Wait without",
	"sync.Cond is copied",
	"sync: WaitGroup misuse",
	"Log in goroutine after ",  // testing: t.Log and the rest after the test completed
	"Fail in goroutine after ", // testing: t.Fail and the rest after the test completed
}

//go:norace
func isMisusePanic(msg string) bool {
	for _, m := range misusePanics {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// misuse ends the run with a misuse bug. Go reports these as fatal errors
// that no recover can catch, so the run cannot go on.
//
//go:norace
func (e *Exec) misuse(msg string) {
	if e.res.Bug == nil {
		e.res.Bug = &Bug{Kind: KindMisuse, Message: msg, G: e.cur, Stack: stackOf()}
	}
	e.finish()
	e.park(e.cur)
}

//go:norace
func (e *Exec) divergence() *Bug {
	var keys []string
	for _, c := range e.choices {
		keys = append(keys, c.Key())
	}
	why := "the test behaves differently from run to run (state kept across runs, wall-clock time or randomness not controlled by heddle), or the program changed"
	if away := e.awayCause(); away != "" {
		why = away + ": when such a wait ends is up to the operating system, not to heddle's schedule; or " + why
	}
	return &Bug{
		Kind:    KindNondeterminism,
		Message: fmt.Sprintf("the run diverged from the schedule at step %d: enabled were %s; %s", e.steps+1, strings.Join(keys, ", "), why),
		G:       e.cur,
	}
}

// Unwinding reports whether the run has ended and its goroutines are being
// unwound: a goroutine that does not return normally now was ended by
// heddle, not by the program.
//
//go:norace
func (e *Exec) Unwinding() bool { return e.aborting }

// nilCheck dereferences p, as the method of a sync type does first: on a
// nil pointer it panics with Go's runtime error, where heddle's shadow
// state would happily model a mutex at address 0.
//
//go:norace
func nilCheck(p unsafe.Pointer) {
	_ = *(*byte)(p)
}

// DeadlockMessage is the message of a deadlock: the kind says the rest
// (it was "all goroutines are blocked: deadlock", which a timing verdict
// showed as "the failure: deadlock: all goroutines are blocked: deadlock").
const DeadlockMessage = "all goroutines are blocked"

// StepLimitMessage is the message of a step-bound bug of a run bounded to
// limit steps, scheduled fairly from step fairAfter, of a test whose fair
// run ended in fairSteps steps (negative: had not ended after -fairSteps;
// 0: not measured).
func StepLimitMessage(limit, fairAfter, fairSteps int) string {
	msg := "step bound exceeded: " + itoa(limit) + " scheduling steps"
	switch {
	case fairSteps > 0:
		return msg + ", scheduled fairly from step " + itoa(fairAfter) + ", while a fair schedule of the test ends in " + itoa(fairSteps) + " steps (this schedule livelocks, or loops without blocking)"
	case fairSteps < 0:
		return msg + " (livelock, or a loop that never blocks: a fair schedule of the test had not ended after " + itoa(-fairSteps) + " steps either)"
	}
	return msg + " (livelock, or a loop that never blocks)"
}

// TimeLimitMessage is the message of a step-bound bug of a run ended by its
// time bound limit (Config.TimeLimit) at step steps.
func TimeLimitMessage(limit time.Duration, steps int) string {
	return "time bound exceeded: the test had not returned after " + DurationText(limit) +
		" of virtual time (" + itoa(steps) + " scheduling steps; timers, not polls, moved the clock), which natively takes at least as long: " +
		"go test's -timeout (10m by default) would end it (a livelock kept alive by timers, a lost wakeup beside a ticker, or a wait that long)"
}
