package explore

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
)

// A package's top-level parallel tests (those that call t.Parallel) run,
// under go test, concurrently with each other once the sequential tests
// are done: two of them sharing package state can fail only together.
// Each test's own exploration runs it alone; heddle test then explores the
// tests that called t.Parallel together, as one unit, the group
// (Config.Group): each run starts their functions in go test's order, each
// in a goroutine with a T of its own, and lets each run until it returns
// or calls t.Parallel, as go test's sequential pass does; then the parallel
// parts run concurrently, as subtests that called t.Parallel do
// (subtest.go). Reports, events and schedules name the group GroupName.

// GroupName is the name under which the group of top-level parallel tests
// names is explored: its events, reports and schedules. Its tests joined
// by "+", or, for more than three, the first two and how many more
// ("TestA+TestB+5-more"): the name is part of schedule file names. Events
// and reports list them all.
func GroupName(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s+%s+%d-more", names[0], names[1], len(names)-2)
	}
	return strings.Join(names, "+")
}

// GroupRunPattern is the -test.run pattern that selects exactly the tests
// names, at the top level.
func GroupRunPattern(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// AloneProof ends the proof of a test that calls t.Parallel: what its own
// exploration proved holds of the test alone, and not of the test beside
// the package's other parallel tests (their group's exploration covers
// that). The same words for every such test, so that heddle test can
// drop them once the group's exploration proved as much.
const AloneProof = ", of the test alone: it calls t.Parallel, and go test runs it beside the package's other parallel tests"

// groupBodies are the functions of the group's tests, by name, gathered as
// go test calls the tests one after the other (Test): the last one
// explores them all.
var groupBodies struct {
	sync.Mutex
	m map[string]func(*testing.T)
}

// GroupPassedOn is what a test of the group, other than the last, logs:
// the last one explores them all.
const GroupPassedOn = "explored with the package's other parallel tests, as"

// testGroup is Test in a binary that explores the group cfg.Group: each of
// its tests gives its function, and the last one, go test's last, explores
// them together on its own T.
func testGroup(t *testing.T, cfg Config, body func(t *testing.T)) {
	t.Helper()
	if !slices.Contains(cfg.Group, t.Name()) {
		t.Skipf("heddle: %s is not one of the parallel tests explored together (%s)", t.Name(), GroupName(cfg.Group))
	}
	groupBodies.Lock()
	if groupBodies.m == nil {
		groupBodies.m = map[string]func(*testing.T){}
	}
	groupBodies.m[t.Name()] = body
	n := len(groupBodies.m)
	var bodies []func(*testing.T)
	if n == len(cfg.Group) {
		for _, name := range cfg.Group {
			bodies = append(bodies, groupBodies.m[name])
		}
		groupBodies.m = nil
	}
	groupBodies.Unlock()
	if bodies == nil {
		t.Logf("heddle: %s %s", GroupPassedOn, GroupName(cfg.Group))
		return
	}
	test(t, nil, groupBody(cfg.Group, bodies))
}

// groupBody is the body of a run of the group: the tests start in order,
// each in a controlled goroutine with its own scope, named as the test;
// each one after the one before returned or called t.Parallel. The run's
// root, this function, then returns: the parallel parts run, and the run
// ends when they did (endScope).
func groupBody(names []string, bodies []func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		x := engine.Current()
		rs := x.T.(*runT)
		for i, name := range names {
			f := bodies[i]
			rs.startScope(x, &rs.root, sanitize(name), name, f)
		}
	}
}

// group reports whether x explores a group of parallel tests.
func (x *explorer) group() bool { return len(x.cfg.Group) > 0 }

// groupExtra is what a schedule of the group records: its tests.
func (x *explorer) groupExtra(extra map[string]string) map[string]string {
	if !x.group() {
		return extra
	}
	b, err := json.Marshal(x.cfg.Group)
	if err != nil {
		return extra
	}
	if extra == nil {
		extra = map[string]string{}
	}
	extra["group"] = string(b)
	return extra
}

// runPatternOf is the -test.run pattern that selects what x explores: its
// test, or the tests of its group.
func (x *explorer) runPatternOf() string {
	if x.group() {
		return GroupRunPattern(x.cfg.Group)
	}
	return runPattern(x.t.Name())
}

// groupNote says, in a report of the group, which tests ran together and
// which of them failed in the reported run; and, in any report, which
// subtests failed (go test's "--- FAIL: TestX/sub" lines).
//
//go:norace
func (x *explorer) groupNote(b *strings.Builder, rs *runT) {
	defer subtestsNote(b, rs, x.group())
	if !x.group() {
		return
	}
	var failed []string
	for _, k := range rs.root.kids {
		if k.failed {
			failed = append(failed, k.full)
		}
	}
	fmt.Fprintf(b, "  the top-level parallel tests %s, which go test runs concurrently, explored together", strings.Join(x.cfg.Group, ", "))
	if len(failed) > 0 {
		fmt.Fprintf(b, "; failed: %s", strings.Join(failed, ", "))
	}
	fmt.Fprintln(b)
}

// aloneClause ends the proof of a test that called t.Parallel
// (AloneProof), or of an example whose output is compared in order
// (ExampleProof).
func (x *explorer) aloneClause() string {
	if x.topParallel && !x.group() {
		return AloneProof
	}
	if orderedExample {
		return ExampleProof
	}
	return ""
}

// scheduleTest is the test a schedule records: the test's name (heddle
// run's TestHeddleMain), or the group's.
func (x *explorer) scheduleTest() string {
	if x.group() {
		return GroupName(x.cfg.Group)
	}
	return x.t.Name()
}

// subtestsNote names the subtests that failed in the run, in the order
// they started: "  failed subtests: TestX/a, TestX/a/b". The tests of a
// group (group) are named by groupNote, not here.
//
//go:norace
func subtestsNote(b *strings.Builder, rs *runT, group bool) {
	var failed []string
	var walk func(sc *scope, depth int)
	walk = func(sc *scope, depth int) {
		for _, k := range sc.kids {
			if k.failed && !k.bubble && (depth > 0 || !group) {
				failed = append(failed, k.Name())
			}
			walk(k, depth+1)
		}
	}
	walk(&rs.root, 0)
	if len(failed) > 0 {
		fmt.Fprintf(b, "  failed subtests: %s\n", strings.Join(failed, ", "))
	}
}
