package explore

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"reflect"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// mainState is what Main shares with the explorer of its runs.
type mainState struct {
	// out holds the output of the current run of main, when it is not
	// let through (nil then).
	out *os.File
	// warming is set while a replay runs the runs before the one it
	// replays (see warmUp): their output is not the replayed run's.
	warming bool
}

// MainTest is the name of the test that `heddle run` adds to a main
// package: it calls Main with the package's main function.
const MainTest = "TestHeddleMain"

// Main explores main, the main function of the package under test, as
// Test explores a test body: each run calls main on the test goroutine,
// and main returning ends the run as a test returning does (the goroutines
// left run on, and those blocked forever are leaks). Before each run,
// os.Args is set to Config.Args and flag.CommandLine to a new set holding
// the flags the program defined during its initialization, with the values
// they had when it ended, so that every run parses the same arguments from
// scratch
// (flags main itself defines are defined again in the new set). The test
// binary's own -test.* flags are not in it. Unless Config.Output is set,
// the program's standard output and error, and the standard logger, are
// kept from the terminal during the exploration (1000 runs would print
// 1000 times): each run's output goes to a file, and the report of a bug
// ends with the output of the run it replays. Everything is restored when
// the exploration ends.
func Main(t *testing.T, main func()) {
	t.Helper()
	cfg, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	args := cfg.Args
	if len(args) == 0 {
		args = []string{os.Args[0]}
	}
	if cfg.Stdin != "" {
		if _, err := os.Stat(cfg.Stdin); err != nil {
			t.Fatalf("heddle: standard input of main: %v", err)
		}
	}
	savedArgs, savedFlags := os.Args, flag.CommandLine
	savedIn, savedOut, savedErr := os.Stdin, os.Stdout, os.Stderr
	var in *os.File // the current run's standard input
	defer func() {
		os.Stdin = savedIn
		if in != nil {
			in.Close()
		}
	}()
	logOut, logFlags, logPrefix := log.Writer(), log.Flags(), log.Prefix()
	defer func() {
		os.Args, flag.CommandLine = savedArgs, savedFlags
		os.Stdout, os.Stderr = savedOut, savedErr
		log.SetOutput(logOut)
		log.SetFlags(logFlags)
		log.SetPrefix(logPrefix)
	}()
	var defined []*flagState
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			defined = append(defined, snapshot(f))
		}
	})
	usage := flag.CommandLine.Usage
	m := &mainState{}
	var out io.Writer = logOut
	if !cfg.Output {
		f, err := os.CreateTemp("", "heddle-main-output-*")
		if err != nil {
			t.Fatalf("heddle: %v", err)
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		os.Stdout, os.Stderr = f, f
		out = f
		m.out = f
	}
	var null *os.File // for the runs a replay makes before the one it replays
	if cfg.Output {
		if null, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
			t.Fatalf("heddle: %v", err)
		}
		defer null.Close()
	}
	test(t, m, func(t *testing.T) {
		switch {
		case m.out != nil:
			// Each run's output replaces the last: a report shows the
			// output of the run it replays.
			m.out.Truncate(0)
			m.out.Seek(0, io.SeekStart)
		case m.warming:
			os.Stdout, os.Stderr, out = null, null, null
		default:
			os.Stdout, os.Stderr, out = savedOut, savedErr, logOut
		}
		if cfg.Stdin != "" {
			// Every run reads the whole input from its start. The last
			// run's file is closed only now: goroutines it left may have
			// read from it after main returned.
			if in != nil {
				in.Close()
			}
			f, err := os.Open(cfg.Stdin)
			if err != nil {
				panic(fmt.Sprintf("heddle: standard input of main: %v", err))
			}
			in, os.Stdin = f, f
		}
		os.Args = append([]string(nil), args...)
		flag.CommandLine = freshFlags(args[0], defined, usage)
		log.SetOutput(out)
		log.SetFlags(logFlags)
		log.SetPrefix(logPrefix)
		main()
	})
}

// flagState is a flag defined at initialization, with its value then.
type flagState struct {
	f     *flag.Flag
	ptr   reflect.Value // the flag.Value, when it is a pointer
	saved reflect.Value // what it pointed to
	text  string        // its value as text
}

// snapshot records the value of f.
func snapshot(f *flag.Flag) *flagState {
	s := &flagState{f: f, text: f.Value.String()}
	if v := reflect.ValueOf(f.Value); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().CanSet() {
		s.ptr = v
		s.saved = reflect.New(v.Elem().Type()).Elem()
		s.saved.Set(v.Elem())
	}
	return s
}

// freshFlags returns a new flag set, as flag.CommandLine is at the start of
// a process, holding the flags defined at initialization with the values
// they had then. A value is restored by copying back what its pointer
// pointed to (which resets a custom flag that appends, such as a list of
// -tag values), and, if its text still differs (flag.TextVar points
// further), by setting its text.
//
//go:norace
func freshFlags(name string, defined []*flagState, usage func()) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.Usage = usage
	for _, s := range defined {
		if s.saved.IsValid() {
			s.ptr.Elem().Set(s.saved)
		}
		if s.f.Value.String() != s.text {
			s.f.Value.Set(s.text)
		}
		fs.Var(s.f.Value, s.f.Name, s.f.Usage)
	}
	return fs
}

// name is the name of the explored test in reports and events: "main" for
// heddle run.
func (x *explorer) name() string {
	if x.cfg.Main {
		return "main"
	}
	if x.group() {
		return GroupName(x.cfg.Group)
	}
	return x.t.Name()
}

// g0Origin describes goroutine g0 in reports.
func (x *explorer) g0Origin() string {
	if x.cfg.Main {
		return "the main goroutine"
	}
	if x.group() {
		return "the goroutine that starts the tests, in go test's order"
	}
	return "the test goroutine"
}

// title is the title of a bug's report.
func (x *explorer) title(bug *engine.Bug) string {
	if x.cfg.Main && bug.Kind == engine.KindFail {
		return "FAILURE"
	}
	if bug.Computing {
		return "ENDLESS COMPUTATION"
	}
	if bug.Kind == engine.KindStepLimit && bug.Clock {
		// Ended by its time bound, not its step bound: say what
		// happened (ants' Tune was "STEP BOUND EXCEEDED" after 10,358
		// of a million steps).
		return "TIME BOUND EXCEEDED"
	}
	return kindTitle(bug.Kind)
}

// scheduleExtra is what a schedule records besides the test: for heddle
// run, that the test is main's, and its arguments.
func (x *explorer) scheduleExtra() map[string]string {
	if !x.cfg.Main {
		return nil
	}
	b, err := json.Marshal(x.cfg.Args)
	if err != nil {
		b = []byte("[]")
	}
	extra := map[string]string{"main": "true", "args": string(b), "workdir": x.cfg.WorkDir}
	if x.cfg.Stdin != "" {
		extra["stdin"] = x.cfg.Stdin
	}
	return extra
}

// mainOutputLines is how much of main's output a report shows.
const mainOutputLines = 20

// mainOutput writes, for heddle run, the end of the output of the run just
// made (the replay that a report is built from).
func (x *explorer) mainOutput(b *strings.Builder) {
	if !x.cfg.Main || x.main == nil || x.main.out == nil {
		return
	}
	data, err := os.ReadFile(x.main.out.Name())
	if err != nil {
		return
	}
	text := strings.TrimRight(string(data), "\n")
	if text == "" {
		fmt.Fprintln(b, "\noutput of main: none")
		return
	}
	lines := strings.Split(text, "\n")
	if len(lines) > mainOutputLines {
		fmt.Fprintf(b, "\noutput of main (the last %d of %d lines):\n", mainOutputLines, len(lines))
		lines = lines[len(lines)-mainOutputLines:]
	} else {
		fmt.Fprintln(b, "\noutput of main:")
	}
	for _, l := range lines {
		fmt.Fprintf(b, "    %s\n", l)
	}
}

// mainResult words a run's bug for heddle run: main, not a test, returned.
func (x *explorer) mainResult(res *engine.Result) {
	if x.cfg.Main && res.Bug != nil {
		res.Bug.Message = strings.Replace(res.Bug.Message, "the test returned", "main returned", 1)
	}
}
