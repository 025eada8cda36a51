package explore

import (
	"fmt"
	"io"
	"log"
	"os"
	"strings"
)

// testOutput keeps a test's standard output and error, and the standard
// logger's, from the terminal while it is explored: a test that prints
// would print once per run, a thousand times. Each run's output replaces
// the last one's in a file, and a report shows the output of the run it
// replays, the failing run. With heddle test -v everything goes through.
type testOutput struct {
	f              *os.File
	stdout, stderr *os.File
	logOut         io.Writer
	logFlags       int
	logPrefix      string
	restored       bool
	removed        bool // the file is unlinked already
}

// OutputFilePrefix starts the name of the file that stands for the
// process's standard output and error while the runs' output is kept
// (captureTestOutput). Writing there is no step, as writing to the
// process's own streams is not (rt's file model): a replay, whose output
// goes through, wrote to /dev/stdout in no step, and diverged from the
// recorded run, whose prints were steps (retry-go's TestContext prints
// in its goroutines: 71 steps, not 73).
const OutputFilePrefix = "heddle-test-output-"

// captureTestOutput starts keeping the output of the runs, or returns nil
// when it goes through (Config.Output: heddle test -v; heddle replay;
// heddle run, which keeps main's output itself).
func captureTestOutput(cfg Config) *testOutput {
	if cfg.Main || cfg.Replay != "" || cfg.Output {
		return nil
	}
	f, err := os.CreateTemp("", OutputFilePrefix+"*")
	if err != nil {
		return nil // the output goes through
	}
	// Unlinked at once where the system allows it: nothing is left
	// behind even if the process is killed.
	o := &testOutput{f: f, stdout: os.Stdout, stderr: os.Stderr, logOut: log.Writer(), logFlags: log.Flags(), logPrefix: log.Prefix(), removed: os.Remove(f.Name()) == nil}
	os.Stdout, os.Stderr = f, f
	log.SetOutput(f)
	return o
}

// newRun empties the file for the next run.
func (o *testOutput) newRun() {
	if o == nil {
		return
	}
	o.f.Truncate(0)
	o.f.Seek(0, io.SeekStart)
	if os.Stdout == o.stdout {
		return
	}
	// A run may have set them to something else; the next one starts
	// from the file again.
	os.Stdout, os.Stderr = o.f, o.f
	log.SetOutput(o.f)
	log.SetFlags(o.logFlags)
	log.SetPrefix(o.logPrefix)
}

// restore ends the capture and removes the file.
func (o *testOutput) restore() {
	if o == nil || o.restored {
		return
	}
	o.restored = true
	os.Stdout, os.Stderr = o.stdout, o.stderr
	log.SetOutput(o.logOut)
	log.SetFlags(o.logFlags)
	log.SetPrefix(o.logPrefix)
	o.f.Close()
	if !o.removed {
		os.Remove(o.f.Name())
	}
}

// maxRunOutputShown is how many lines of a run's output a report shows.
const maxRunOutputShown = 20

// write adds the output of the run just made (the replay of the failing
// run) to a report, its last lines.
func (o *testOutput) write(b *strings.Builder) {
	if o == nil || o.restored {
		return
	}
	end, err := o.f.Seek(0, io.SeekCurrent)
	if err != nil || end <= 0 {
		return
	}
	data := make([]byte, end)
	if _, err := o.f.ReadAt(data, 0); err != nil && err != io.EOF {
		return
	}
	text := strings.TrimRight(string(data), "\n")
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if len(lines) > maxRunOutputShown {
		fmt.Fprintf(b, "\noutput of the failing run (the last %d of %d lines):\n", maxRunOutputShown, len(lines))
		lines = lines[len(lines)-maxRunOutputShown:]
	} else {
		fmt.Fprintln(b, "\noutput of the failing run:")
	}
	for _, l := range lines {
		fmt.Fprintf(b, "    %s\n", l)
	}
}
