package explore

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// Example explores body, the example name that go test runs with the
// output want (unordered: an "Unordered output:" comment), and returns
// true; in a run (body calls Example first, see rt.Example) it returns
// false at once. Each run's standard output is kept, and a run whose
// output differs from want, as go test compares them, fails with go
// test's "got:"/"want:" text.
//
// go test calls an example without a testing.T, its standard output
// redirected to a pipe (os.Stdout only: file descriptor 1 is the binary's
// output still). Example explores body as a test named name, under a T of
// testing.RunTests, whose output goes to the binary's output: a report
// appears under "--- FAIL: name" as a test's does. Then it writes to the
// pipe what go test compares with want: want itself when no bug was found,
// and otherwise the output of the failing run (with a line naming the
// report when it equals want), so that go test fails the example too.
func Example(name, want string, unordered bool, body func()) bool {
	if engine.Current() != nil {
		return false
	}
	pipe := os.Stdout
	out, err := os.CreateTemp("", "heddle-example-output-*")
	if err != nil {
		fmt.Fprintf(pipe, "heddle: cannot keep the output of %s: %v\n", name, err)
		return true
	}
	defer func() {
		out.Close()
		os.Remove(out.Name())
	}()
	var failed string // the output of the last failing run
	os.Stdout = binaryStdout
	comment := "// Output:"
	if unordered {
		comment = "// Unordered output:"
	}
	orderedExample = !unordered
	defer func() { orderedExample = false }()
	ok := testing.RunTests(matchString, []testing.InternalTest{{Name: name, F: func(t *testing.T) {
		t.Helper()
		Test(t, func(t *testing.T) {
			got := exampleRun(out, body)
			msg := exampleMismatch(got, want, unordered)
			if msg == "" {
				return
			}
			failed = got
			if sc, ok := TB(t).(*scope); ok {
				sc.rs.failWith(sc, "the example's output is not its "+comment+" comment's", msg)
				return
			}
			t.Error(msg)
		})
	}}})
	os.Stdout = pipe
	switch {
	case ok:
		fmt.Fprint(pipe, want)
	case exampleMismatch(failed, want, unordered) == "":
		fmt.Fprintf(pipe, "%s\nheddle: a run of %s failed: see its report above\n", failed, name)
	default:
		fmt.Fprint(pipe, failed)
	}
	return true
}

// binaryStdout is the binary's standard output (descriptor 1), as package
// os opened it: an example is explored with it as os.Stdout. It is the one
// File for descriptor 1, kept reachable for the life of the process; a new
// os.NewFile(1) per example became unreachable once its example ended, and
// its finalizer closed descriptor 1 under the binary: a later example's
// pipe took the number, and go test's copy of that example's output never
// ended (Code-Hex/go-generics-cache's policy/simple hung until killed).
// It is set when the package is initialized, before any test or example
// runs, and never changed.
var binaryStdout = os.Stdout

// exampleRun runs body with its standard output going to out (emptied
// first) and returns that output.
func exampleRun(out *os.File, body func()) string {
	out.Truncate(0)
	out.Seek(0, io.SeekStart)
	saved := os.Stdout
	os.Stdout = out
	func() {
		defer func() { os.Stdout = saved }()
		body()
	}()
	data, err := os.ReadFile(out.Name())
	if err != nil {
		return fmt.Sprintf("heddle: cannot read the example's output: %v", err)
	}
	return string(data)
}

// exampleMismatch is go test's text for an example whose output got is not
// want, "" when they match (testing's processRunResult).
func exampleMismatch(got, want string, unordered bool) string {
	g, w := strings.TrimSpace(got), strings.TrimSpace(want)
	if unordered {
		if sortLines(g) != sortLines(w) {
			return fmt.Sprintf("got (unordered):\n%s\nwant (unordered):\n%s", got, want)
		}
		return ""
	}
	if g != w {
		return fmt.Sprintf("got:\n%s\nwant:\n%s", g, w)
	}
	return ""
}

func sortLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// matchString is testing.RunTests's matcher of -test.run and -test.skip.
func matchString(pat, str string) (bool, error) {
	re, err := regexp.Compile(pat)
	if err != nil {
		return false, err
	}
	return re.MatchString(str), nil
}

// failWith fails the run with the headline head, logging text: a failure
// of the example's output, which no line of the example made.
//
//go:norace
func (t *runT) failWith(sc *scope, head, text string) {
	t.msgs = append(t.msgs, text)
	t.failed = true
	sc.markFailed()
	if t.firstErr == "" {
		t.firstErr = head
	}
}

// orderedExample is set while an example whose output is compared in
// order is explored: its proof says what it does not cover (ExampleProof).
var orderedExample bool

// ExampleProof ends the proof of an example whose output is compared in
// order: writes to standard output are not scheduling points, so the order
// of two goroutines' writes is explored only as far as synchronization
// orders them.
const ExampleProof = "; the order in which goroutines write to standard output is explored only where synchronization orders it"
