package conform

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// PackageName is the package of every corpus file; ModuleName the module
// path of the temporary modules the harness writes.
const (
	PackageName = "prog"
	ModuleName  = "conformprog"
)

// Variant is how the corpus is built natively.
type Variant string

const (
	// Plain is the corpus as written.
	Plain Variant = "plain"
	// Noise has a random number (0 to 2) of runtime.Gosched calls injected
	// before every statement of the programs' files (Noise), on the same
	// line, so that positions and messages stay those of Plain.
	Noise Variant = "noise"
)

type insert struct {
	off  int
	text string
}

func applyInserts(src []byte, ins []insert) []byte {
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].off > ins[j].off })
	out := append([]byte(nil), src...)
	for _, in := range ins {
		out = append(out[:in.off], append([]byte(in.text), out[in.off:]...)...)
	}
	return out
}

// NoiseCall is the statement the Noise variant injects.
const NoiseCall = "conformNoise(); "

// InjectNoise returns src with NoiseCall inserted before every statement
// of every block (function bodies, function literals, if/for/switch/select
// bodies and case clauses), on the statement's own line. A statement
// list's first statement is preceded too, so that a goroutine may yield
// as soon as it starts, and so is every later statement: a yield between
// any two statements of the program.
func InjectNoise(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var ins []insert
	add := func(list []ast.Stmt) {
		for _, st := range list {
			switch st.(type) {
			case *ast.CaseClause, *ast.CommClause:
				continue // the clauses of a switch or select body
			}
			ins = append(ins, insert{fset.Position(st.Pos()).Offset, NoiseCall})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			add(n.List)
		case *ast.CaseClause:
			add(n.Body)
		case *ast.CommClause:
			add(n.Body)
		}
		return true
	})
	out := applyInserts(src, ins)
	if _, err := parser.ParseFile(token.NewFileSet(), name, out, 0); err != nil {
		return nil, fmt.Errorf("%s: noise does not parse: %v", name, err)
	}
	return out, nil
}

// LogMark starts the message of every t.Log, t.Logf, t.Skip and t.Skipf
// line in the native copies of the corpus (MarkLogs): natively a line of
// the test's output does not say whether a failing call printed it, and
// the outcome of a failing run is its first failing line, as heddle's.
const LogMark = "conform-log:"

// logCalls are the printing methods of testing.TB that do not fail the
// test, and the functions of the native driver that MarkLogs calls
// instead.
var logCalls = map[string]string{
	"Log":   "conformLog",
	"Logf":  "conformLogf",
	"Skip":  "conformSkip",
	"Skipf": "conformSkipf",
}

// MarkLogs returns src with every call x.Log(args), x.Logf(args),
// x.Skip(args) and x.Skipf(args) replaced by conformLog(x, args) and its
// siblings, on the same line: helpers of the driver (logFuncs) that print
// LogMark before the message. Lines and positions stay those of src (the
// helpers call Helper).
func MarkLogs(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	type edit struct{ from, to int } // src[from:to] (x.Log) becomes fn(x,
	var edits []edit
	var fns []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || logCalls[sel.Sel.Name] == "" {
			return true
		}
		edits = append(edits, edit{fset.Position(sel.Pos()).Offset, fset.Position(call.Lparen).Offset + 1})
		fns = append(fns, logCalls[sel.Sel.Name])
		return true
	})
	// From the last to the first, so that offsets stay valid; a call
	// inside another's arguments comes after it in the source.
	out := append([]byte(nil), src...)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		sel := string(src[e.from:e.to])
		x := sel[:strings.LastIndex(sel, ".")]
		repl := fns[i] + "(" + x + ", "
		out = append(out[:e.from], append([]byte(repl), out[e.to:]...)...)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), name, out, 0); err != nil {
		return nil, fmt.Errorf("%s: log-marked copy does not parse: %v", name, err)
	}
	return out, nil
}

// logFuncs are the helpers MarkLogs calls, in the native driver.
const logFuncs = `
// conformLog and its siblings print a line of t.Log, t.Logf, t.Skip or
// t.Skipf marked as not failing (heddle.dev/internal/conform.MarkLogs).
func conformLog(tb testing.TB, args ...any) {
	tb.Helper()
	tb.Log(append([]any{"` + LogMark + `"}, args...)...)
}

func conformLogf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	tb.Logf("` + LogMark + ` "+format, args...)
}

func conformSkip(tb testing.TB, args ...any) {
	tb.Helper()
	tb.Skip(append([]any{"` + LogMark + `"}, args...)...)
}

func conformSkipf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	tb.Skipf("` + LogMark + ` "+format, args...)
}
`

// In heddle's copy, the body of every program is wrapped, on its own first
// and last lines, in a call of conformRun, which records in the file named
// by $CONFORM_MARKS that a run of the program returned normally without
// failing (a mark, written by a cleanup). heddle reports the runs that
// fail, panic, deadlock or leak; the marks tell whether some run passed.
const (
	markOpen  = "conformRun(%s, func() {"
	markClose = "})"
)

// InsertMarks returns src with the body of every program wrapped in a call
// of conformRun, on the lines of its braces.
func InsertMarks(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var ins []insert
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Test") {
			continue
		}
		tp := tParam(fd)
		if tp == "" {
			continue
		}
		ins = append(ins,
			insert{fset.Position(fd.Body.Lbrace).Offset + 1, fmt.Sprintf(markOpen, tp)},
			insert{fset.Position(fd.Body.Rbrace).Offset, markClose})
	}
	out := applyInserts(src, ins)
	if _, err := parser.ParseFile(token.NewFileSet(), name, out, 0); err != nil {
		return nil, fmt.Errorf("%s: marked copy does not parse: %v", name, err)
	}
	return out, nil
}

const markFile = `package ` + PackageName + `

import (
	"os"
	"testing"
)

// conformRun runs the body of a program; it is inserted by
// heddle.dev/internal/conform. A run whose body returned normally (no
// panic, no runtime.Goexit) or was skipped, and that did not fail,
// appends the program's name to $CONFORM_MARKS when the test ends.
func conformRun(t *testing.T, body func()) {
	returned := false
	t.Cleanup(func() {
		if !(returned || t.Skipped()) || t.Failed() {
			return
		}
		f, err := os.OpenFile(os.Getenv("CONFORM_MARKS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if _, err := f.WriteString(t.Name() + "\n"); err != nil {
			panic(err)
		}
	})
	body()
	returned = true
}
`

// writeModule writes the module of corpus c in dir: change (if not nil)
// changes each program file, and extra are more files.
func writeModule(dir string, c *Corpus, change func(name string, src []byte) ([]byte, error), extra map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{"go.mod": []byte("module " + ModuleName + "\n\ngo 1.25\n")}
	for _, f := range c.Files {
		src := f.Src
		if change != nil {
			var err error
			if src, err = change(f.Name, src); err != nil {
				return err
			}
		}
		files[f.Name] = src
	}
	for name, s := range extra {
		files[name] = []byte(s)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteHeddleModule writes the module heddle explores: the corpus with a
// mark at the start of every program.
func WriteHeddleModule(dir string, c *Corpus) error {
	return writeModule(dir, c, InsertMarks, map[string]string{"conform_mark_test.go": markFile})
}

// WriteNativeModule writes the module built natively in variant v: the
// corpus (with noise for Noise) and the driver test, TestConformNative.
func WriteNativeModule(dir string, c *Corpus, v Variant) error {
	change := MarkLogs
	noise := ""
	if v == Noise {
		change = func(name string, src []byte) ([]byte, error) {
			src, err := MarkLogs(name, src)
			if err != nil {
				return nil, err
			}
			return InjectNoise(name, src)
		}
		noise = noiseFunc
	}
	return writeModule(dir, c, change, map[string]string{"conform_native_test.go": driverFile(c, noise)})
}

const noiseFunc = `
// conformNoise yields the processor 0, 1 or 2 times, at random.
func conformNoise() {
	for range rand.IntN(3) {
		runtime.Gosched()
	}
}
`

func driverFile(c *Corpus, noise string) string {
	var progs, files []string
	for _, f := range c.Files {
		files = append(files, strconv.Quote(f.Name)+": true")
		for _, p := range f.Programs {
			progs = append(progs, fmt.Sprintf("\t%q: %s,", p.Name, p.Name))
		}
	}
	imp := ""
	if noise != "" {
		imp = "\t\"math/rand/v2\"\n"
	}
	_, stack, ok := strings.Cut(driverStack, "// The code below this line is also the native driver's")
	if !ok {
		panic("conform: driverstack.go lost its marker line")
	}
	return fmt.Sprintf(driver, imp, strings.Join(progs, "\n"), strings.Join(files, ", "), noise+logFuncs) + "\n// From heddle.dev/internal/conform's driverstack.go" + stack
}

// driverStack is the source of driverstack.go, which the driver includes.
//
//go:embed driverstack.go
var driverStack string

// driver is the native test: TestConformNative runs the program named by
// $CONFORM_PROG as a subtest, once per run from $CONFORM_FROM to
// $CONFORM_TO (or until $CONFORM_DEADLINE), and after each run waits for
// the goroutines running the program's code: it reports as leaked those
// still there when all of them are blocked (in a channel operation, a
// select, or a sync primitive) and have stayed so for $CONFORM_STABLE
// (0: at once, for programs without timers, where nothing can wake them),
// or that still run after $CONFORM_GRACE. Lines "CONFORM-RUN n" and
// "CONFORM-END n positions" (the leaked goroutines' positions, if any) on
// standard output frame each run, after "CONFORM-FAILED n" if it failed; with -test.v
// the program's t.Error messages are printed between them, as they
// happen. Go's deadlock detector stays armed (the harness passes
// -test.timeout=0): when every goroutine blocks, the runtime kills the
// process with "all goroutines are asleep".
const driver = `package ` + PackageName + `

import (
	"fmt"
%s	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var conformPrograms = map[string]func(*testing.T){
%s
}

var conformFiles = map[string]bool{%s}

func conformEnv(name string) int64 {
	n, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil {
		panic(name + ": " + err.Error())
	}
	return n
}

// conformLeft returns the goroutines, other than the caller and those in
// old, that run code of the programs' files (conformParse).
func conformLeft(old map[string]bool) []conformG {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return conformParse(string(buf), old, conformFiles)
}

func TestConformNative(t *testing.T) {
	prog := conformPrograms[os.Getenv("CONFORM_PROG")]
	if prog == nil {
		t.Fatalf("no program %%q", os.Getenv("CONFORM_PROG"))
	}
	from, to := conformEnv("CONFORM_FROM"), conformEnv("CONFORM_TO")
	deadline := time.Unix(0, conformEnv("CONFORM_DEADLINE"))
	stable := time.Duration(conformEnv("CONFORM_STABLE"))
	grace := time.Duration(conformEnv("CONFORM_GRACE"))
	old := map[string]bool{}
	// Goroutines started before the first run (in init) are no run's:
	// heddle does not control them, nor reports them as leaks.
	for _, g := range conformLeft(old) {
		old[g.id] = true
	}
	for run := from; run <= to; run++ {
		if time.Now().After(deadline) {
			fmt.Printf("CONFORM-STOP %%d\n", run-1)
			return
		}
		fmt.Printf("CONFORM-RUN %%d\n", run)
		if !t.Run("r", prog) {
			fmt.Printf("CONFORM-FAILED %%d\n", run)
		}
		end := time.Now().Add(grace)
		last, since := "", time.Time{}
		leak := ""
		d := time.Microsecond
		for {
			gs := conformLeft(old)
			if len(gs) == 0 {
				break
			}
			blocked := true
			var ps, ids []string
			for _, g := range gs {
				blocked = blocked && conformBlocked(g)
				ps = append(ps, g.pos)
				ids = append(ids, g.id+" "+g.state+" "+g.pos)
			}
			sort.Strings(ps)
			sig := strings.Join(ids, ";")
			if !blocked {
				last = ""
			} else if sig != last {
				last, since = sig, time.Now()
			}
			if (blocked && time.Since(since) >= stable) || time.Now().After(end) {
				leak = strings.Join(ps, ",")
				if !blocked {
					leak += " (running)"
				}
				for _, g := range gs {
					old[g.id] = true
				}
				break
			}
			if d < time.Millisecond {
				runtime.Gosched()
				d *= 2
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		fmt.Printf("CONFORM-END %%d %%s\n", run, leak)
	}
	fmt.Printf("CONFORM-STOP %%d\n", to)
}
%s`
