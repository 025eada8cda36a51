package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/rewrite"
)

// heddle test -racy: racy accesses as scheduling points (seed-004 §3.6).
//
// Phase 1 explores every package built with -race, with race reports
// counted as no bug so that one race does not end the exploration, and
// collects the source lines of the accesses the detector reports. Phase 2
// rebuilds without -race, with each racy line a scheduling point (a
// visible read or write of its group of racing lines, see
// rewrite.RacyStmt), and explores again: its result is the package's.
// A package in which phase 1 saw no race keeps phase 1's result, whose
// proof then says that -race saw none.

// raceAccess is one access of a race report: the innermost frame of the
// user's module.
type raceAccess struct {
	File  string
	Line  int
	Write bool
}

var (
	raceHeader = regexp.MustCompile(`^(?:Previous )?(?:[Aa]tomic )?([Rr]ead|[Ww]rite) at 0x[0-9a-f]+ by `)
	raceFrame  = regexp.MustCompile(`^\s+(\S.*\.go):(\d+)( \+0x[0-9a-f]+)?$`)
	raceFunc   = regexp.MustCompile(`^\s+(\S+)\(.*\)$`)
)

// parseRaces reads the race detector's reports in a test binary's output
// and returns, for each report, its two accesses, located at the innermost
// frame in a file under root that is not heddle's runtime. A report with
// an access outside root is left out.
func parseRaces(output, root string) [][2]raceAccess {
	var races [][2]raceAccess
	lines := strings.Split(output, "\n")
	var cur []raceAccess
	inReport := false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "WARNING: DATA RACE"):
			inReport, cur = true, nil
			continue
		case l == "==================":
			if inReport && len(cur) == 2 {
				races = append(races, [2]raceAccess{cur[0], cur[1]})
			}
			inReport = false
			continue
		}
		if !inReport {
			continue
		}
		m := raceHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		write := strings.EqualFold(m[1], "write")
		// The stack: a function line, then its file:line, until a blank
		// line.
		fn := ""
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			fl := strings.TrimRight(lines[i], "\r")
			if f := raceFrame.FindStringSubmatch(fl); f != nil {
				if userFrame(fn, f[1], root) {
					n, _ := strconv.Atoi(f[2])
					cur = append(cur, raceAccess{File: filepath.Clean(f[1]), Line: n, Write: write})
					// Skip the rest of this stack.
					for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
						i++
					}
					break
				}
				continue
			}
			if f := raceFunc.FindStringSubmatch(fl); f != nil {
				fn = f[1]
			}
		}
	}
	return races
}

func userFrame(fn, file, root string) bool {
	if strings.HasPrefix(fn, "heddle.dev/rt.") || strings.HasPrefix(fn, "heddle.dev/internal/") {
		return false
	}
	rel, err := filepath.Rel(root, file)
	return err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// racyStatements turns the races of one package into racy statements: one
// per line, a write if any report saw it write, and the lines that raced
// with each other, transitively, in one group named prefix and a number.
func racyStatements(races [][2]raceAccess, prefix string) []rewrite.RacyStmt {
	type key struct {
		file string
		line int
	}
	parent := map[key]key{}
	write := map[key]bool{}
	var find func(k key) key
	find = func(k key) key {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		r := find(p)
		parent[k] = r
		return r
	}
	for _, r := range races {
		a, b := key{r[0].File, r[0].Line}, key{r[1].File, r[1].Line}
		write[a] = write[a] || r[0].Write
		write[b] = write[b] || r[1].Write
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	var keys []key
	for k := range write {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].file != keys[j].file {
			return keys[i].file < keys[j].file
		}
		return keys[i].line < keys[j].line
	})
	names := map[key]string{}
	var out []rewrite.RacyStmt
	for _, k := range keys {
		root := find(k)
		name, ok := names[root]
		if !ok {
			name = prefix + strconv.Itoa(len(names)+1)
			names[root] = name
		}
		out = append(out, rewrite.RacyStmt{File: k.file, Line: k.line, Write: write[k], Group: name})
	}
	return out
}

// racyPhase1 is the first phase's result for one package.
type racyPhase1 struct {
	pkg     *build.Package
	bin     string // "" if it did not build
	printed []byte // what it printed, to be printed if it stands
	res     *runResult
	elapsed time.Duration
	prefix  string          // of its groups' names
	races   [][2]raceAccess // every race seen, all rounds
	racy    []rewrite.RacyStmt
	rounds  int  // -race rounds made
	open    bool // the last round saw racy statements the one before did not
}

// racyRounds bounds the -race rounds of -racy. Interleaving the racy
// statements of one round can make others race (the act of a
// check-then-act, once two goroutines pass the check), so each round
// after the first explores under -race again with the statements found so
// far as scheduling points, until a round finds no new one.
const racyRounds = 3

// sameStatements reports whether a and b are the same lines with the same
// kinds of access (group names aside).
func sameStatements(a, b []rewrite.RacyStmt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].File != b[i].File || a[i].Line != b[i].Line || a[i].Write != b[i].Write {
			return false
		}
	}
	return true
}

func findPackage(prog *build.Program, path string) *build.Package {
	for _, q := range prog.Packages {
		if q.ImportPath == path {
			return q
		}
	}
	return nil
}

// raceFlags are the race detector's options of -racy's -race rounds, put
// before the user's GORACE (whose options win). By default the detector
// reports a race on an address, or between two stacks, only the first
// time: in one test process, which makes every run of an exploration, the
// later races of a variable were never reported, and a statement that
// races only with accesses already reported stayed atomic (the conformance
// program TestRacy0017: z++ after z = 10, three rounds did not find it,
// and optimal DPOR missed the outcome native Go shows).
const raceFlags = "suppress_equal_addresses=0 suppress_equal_stacks=0"

// raceEnv returns GORACE for the -race rounds, given the user's.
func raceEnv(user string) string {
	return strings.TrimSpace(raceFlags + " " + user)
}

// testRacy is cmdTest with -racy.
func testRacy(f *testFlags, opts build.Options, stdout, stderr io.Writer) int {
	opts.Race = true
	// The test binaries of the -race rounds inherit heddle's environment.
	if err := os.Setenv("GORACE", raceEnv(os.Getenv("GORACE"))); err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	prog, outDir, out, ok := load(opts, f, stdout, stderr)
	if !ok {
		return exitUsage
	}
	code := exitOK
	worse := func(c int) {
		if c > code {
			code = c
		}
	}
	var phase1 []*racyPhase1
	for i, pkg := range prog.Packages {
		p := &racyPhase1{pkg: pkg}
		phase1 = append(phase1, p)
		if !pkg.HasTests {
			continue
		}
		var buf bytes.Buffer
		quiet := &syncWriter{w: &buf, progress: out.progress} // the progress line stays on the terminal
		start := time.Now()
		bin, fatal := buildPackage(prog, pkg, f, out, stderr)
		if fatal {
			return exitUsage
		}
		if bin == "" {
			worse(exitUsage)
			continue
		}
		p.bin = bin
		cfg := exploreConfig(f, outDir, prog, pkg)
		cfg.Disable = append(cfg.Disable, engine.KindRace)
		res, err := runEach(runSpec{Package: pkg.ImportPath, Dir: pkg.Dir, Binary: bin, Args: testArgs(f), Config: cfg, JSON: f.json, Verbose: f.verbose, Out: quiet})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		p.res, p.printed, p.elapsed = res, buf.Bytes(), time.Since(start)
		p.prefix = fmt.Sprintf("p%d.g", i+1)
		p.races = parseRaces(res.Output, prog.Module.Root)
		p.racy = racyStatements(p.races, p.prefix)
		p.rounds, p.open = 1, len(p.racy) > 0
	}
	allRacy := func() []rewrite.RacyStmt {
		var all []rewrite.RacyStmt
		for _, p := range phase1 {
			all = append(all, p.racy...)
		}
		return all
	}
	for round := 2; round <= racyRounds; round++ {
		var growing []*racyPhase1
		for _, p := range phase1 {
			if p.open {
				growing = append(growing, p)
			}
		}
		if len(growing) == 0 {
			break
		}
		ropts := opts
		ropts.Racy = allRacy()
		rprog, _, _, ok := load(ropts, f, io.Discard, stderr)
		if !ok {
			return exitUsage
		}
		// The schedules of bugs a -race round finds are not the ones
		// reported: they are of a build that is not the final one.
		rdir, err := os.MkdirTemp("", "heddle-racy-")
		if err != nil {
			fmt.Fprintln(stderr, "heddle:", err)
			return exitUsage
		}
		trackTemp(rdir)
		defer untrackTemp(rdir)
		defer os.RemoveAll(rdir)
		for _, p := range growing {
			rpkg := findPackage(rprog, p.pkg.ImportPath)
			if rpkg == nil {
				fmt.Fprintf(stderr, "heddle: -racy: %s is gone from round %d's build\n", p.pkg.ImportPath, round)
				return exitUsage
			}
			bin, fatal := buildPackage(rprog, rpkg, f, out, stderr)
			if fatal {
				return exitUsage
			}
			if bin == "" {
				worse(exitUsage)
				p.open = false
				continue
			}
			cfg := exploreConfig(f, rdir, rprog, rpkg)
			cfg.Disable = append(cfg.Disable, engine.KindRace)
			res, err := runEach(runSpec{Package: rpkg.ImportPath, Dir: rpkg.Dir, Binary: bin, Args: testArgs(f), Config: cfg, Out: &syncWriter{w: io.Discard, progress: out.progress}})
			if err != nil {
				fmt.Fprintln(stderr, err)
				return exitUsage
			}
			p.races = append(p.races, parseRaces(res.Output, prog.Module.Root)...)
			racy := racyStatements(p.races, p.prefix)
			p.rounds, p.open = round, !sameStatements(racy, p.racy)
			p.racy = racy
		}
	}
	all := allRacy()
	var prog2 *build.Program
	if len(all) > 0 {
		opts.Race = false
		opts.Racy = all
		var ok bool
		prog2, outDir, _, ok = load(opts, f, io.Discard, stderr)
		if !ok {
			return exitUsage
		}
	}
	missed := map[string]bool{}
	if prog2 != nil {
		for _, s := range prog2.RacyMissed {
			missed[s.String()] = true
		}
	}
	for _, p := range phase1 {
		pkg := p.pkg
		switch {
		case !pkg.HasTests:
			if f.json {
				out.printEvent(event.Event{Action: event.Skip, Package: pkg.ImportPath, Output: "no test files"})
			} else {
				fmt.Fprintf(out, "?   \t%s\t[no test files]\n", pkg.ImportPath)
			}
			continue
		case p.bin == "":
			continue // the build failure is printed
		case len(p.racy) == 0:
			out.Write(p.printed)
			if printResult(out, f, pkg.ImportPath, p.res, p.elapsed, false) {
				worse(exitFail)
			}
			continue
		}
		placed := 0
		var names []string
		for _, s := range p.racy {
			if !missed[s.String()] {
				placed++
			}
			rw := "read"
			if s.Write {
				rw = "write"
			}
			names = append(names, fmt.Sprintf("%s:%d (%s)", filepath.Base(s.File), s.Line, rw))
		}
		var added []string
		if prog2 != nil {
			for _, s := range prog2.RacyAdded {
				if filepath.Dir(s.File) != pkg.Dir || missed[s.String()] {
					continue
				}
				rw := "read"
				if s.Write {
					rw = "write"
				}
				added = append(added, fmt.Sprintf("%s:%d (%s)", filepath.Base(s.File), s.Line, rw))
			}
		}
		rounds := ""
		if p.rounds > 1 {
			rounds = fmt.Sprintf(" (in %d rounds)", p.rounds)
		}
		also := ""
		if len(added) > 0 {
			also = fmt.Sprintf(", and with the %d %s that %s the same shared variables: %s", len(added), pluralWord(len(added), "statement", "statements"), pluralWord(len(added), "accesses", "access"), strings.Join(added, ", "))
		}
		note := fmt.Sprintf("heddle: -racy: -race saw %d racy %s in %s%s: %s; exploring again with %d of them as scheduling points%s\n",
			len(p.racy), pluralWord(len(p.racy), "statement", "statements"), pkg.ImportPath, rounds, strings.Join(names, ", "), placed, also)
		placed += len(added)
		if p.open {
			note += fmt.Sprintf("heddle: -racy: the last of %d -race rounds still found new racy statements: others may race, and stay atomic\n", p.rounds)
		}
		if f.json {
			out.printEvent(event.Event{Action: event.Output, Package: pkg.ImportPath, Output: note})
		} else {
			fmt.Fprint(out, note)
		}
		var pkg2 *build.Package
		for _, q := range prog2.Packages {
			if q.ImportPath == pkg.ImportPath {
				pkg2 = q
			}
		}
		if pkg2 == nil {
			fmt.Fprintf(stderr, "heddle: -racy: %s is gone from the second build\n", pkg.ImportPath)
			return exitUsage
		}
		c, fatal := explorePackage(prog2, pkg2, f, outDir, out, stderr, func(cfg *explore.Config, _ string) { cfg.Racy = placed }, runEach)
		if fatal {
			return exitUsage
		}
		worse(c)
	}
	return code
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
