package goker

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// Blocked is a goroutine left blocked by a bug, from a heddle report or a
// native stack dump.
type Blocked struct {
	ID      string // heddle's g0.1, or the runtime's goroutine number
	Wait    string // heddle's description: "Lock", "send on channel", ...
	Func    string // the function where it blocks, without package
	Creator string // the function whose go statement created it ("" for the test goroutine)
	Entry   string // the function it started in, when known
	Raw     string // the line or header it was read from
	Count   int    // goroutines the line stands for (a report groups alike ones when there are many); 0 means 1
}

// n is the number of goroutines b stands for.
func (b Blocked) n() int { return max(b.Count, 1) }

// NBlocked is the number of blocked goroutines in v.
func (v Verdict) NBlocked() int {
	n := 0
	for _, b := range v.Blocked {
		n += b.n()
	}
	return n
}

// Verdict is the correctness check of one reported bug.
type Verdict struct {
	OK      bool
	Why     string    // on failure: what is wrong
	Matched int       // blocked goroutines that match an expected leak
	Blocked []Blocked // all blocked goroutines
}

// Check applies the criterion: at least one goroutine is blocked, every
// blocked goroutine blocks in one of the kernel's own functions, and each
// matches one of the leaks the Go runtime's test expects for the kernel:
// same wait (mapped to heddle's description) and the expected function is
// the goroutine's blocking function, its entry function, or (for closures
// and go-wrappers, whose numbering depends on the compiler and on the
// removed scaffolding) the function that created it.
func (k *Kernel) Check(bs []Blocked) Verdict {
	v := Verdict{Blocked: bs}
	if len(bs) == 0 {
		v.Why = "no blocked goroutine"
		return v
	}
	var bad []string
	for _, b := range bs {
		if k.base(b.Func) == "" {
			bad = append(bad, fmt.Sprintf("%s blocks outside the kernel's functions (%s in %s)", b.ID, b.Wait, b.Func))
			continue
		}
		if l := k.match(b); l == nil {
			bad = append(bad, fmt.Sprintf("%s (%s in %s, created in %s) matches no expected leak", b.ID, b.Wait, b.Func, b.Creator))
			continue
		}
		v.Matched += b.n()
	}
	if len(bad) > 0 {
		v.Why = strings.Join(bad, "; ")
		return v
	}
	v.OK = true
	return v
}

func (k *Kernel) match(b Blocked) *Leak {
	for i := range k.Expected {
		l := &k.Expected[i]
		waitOK := false
		for _, w := range l.Waits {
			if w == b.Wait {
				waitOK = true
			}
		}
		if !waitOK {
			continue
		}
		cands := []string{k.base(b.Func), k.base(b.Creator)}
		if b.Entry != "" {
			cands = append(cands, b.Entry)
		}
		for _, c := range cands {
			if c == "" {
				continue
			}
			if c == l.Base || (!strings.Contains(c, ".") && strings.Contains(l.Base, ".") && method(l.Base) == c) {
				return l
			}
		}
	}
	return nil
}

// heddle report lines of the goroutines section:
//
//	g0.1     created at moby7559.go:50 in goker.Moby7559; blocked forever: Lock at moby7559.go:30 in goker.(*UDPProxy_moby7559).Run
//	g0.2     created at m.go:9 in goker.M; blocked forever: Lock at m.go:12 in goker.f, held by g0.1, locked at m.go:11
//
// reportLineRE matches a blocked goroutine's line of a report, or a line
// standing for several (`g0.5.1   (and 99 more) created at ...`).
var reportLineRE = regexp.MustCompile(`^\s+(g[\d.]+)\s+(?:\(and (\d+) more\)\s+)?(.*?); blocked forever: (.+?) at (\S+?)(?: in ([^\s,]+))?(?:, held by .*)?\s*$`)
var createdRE = regexp.MustCompile(`^created at (\S+?)(?: in (\S+))?$`)

// ParseReport returns the blocked goroutines of a heddle text report.
func (k *Kernel) ParseReport(report string) []Blocked {
	var bs []Blocked
	in := false
	sc := bufio.NewScanner(strings.NewReader(report))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "goroutines:"):
			in = true
			continue
		case in && strings.TrimSpace(line) == "":
			in = false
		}
		if !in {
			continue
		}
		m := reportLineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		b := Blocked{ID: m[1], Wait: m[4], Func: m[6], Raw: strings.TrimSpace(line)}
		if m[2] != "" {
			more, _ := strconv.Atoi(m[2])
			b.Count = 1 + more
		}
		if c := createdRE.FindStringSubmatch(m[3]); c != nil {
			b.Creator = c[2]
			b.Entry = k.goEntry(c[1])
		}
		bs = append(bs, b)
	}
	return bs
}

// goEntry returns the function started by the go statement at pos
// ("file.go:line") of the kernel file, when it is a named function or
// method; "" for a function literal or an unknown position.
func (k *Kernel) goEntry(pos string) string {
	i := strings.LastIndex(pos, ":")
	if i < 0 || pos[:i] != k.File {
		return ""
	}
	line, err := strconv.Atoi(pos[i+1:])
	if err != nil {
		return ""
	}
	// Prepare keeps every line where it was, so the positions of the
	// prepared copy are those of the original.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, k.File, k.Src, 0)
	if err != nil {
		return ""
	}
	entry := ""
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GoStmt)
		if !ok || fset.Position(g.Pos()).Line != line {
			return true
		}
		switch fn := g.Call.Fun.(type) {
		case *ast.Ident:
			entry = fn.Name
		case *ast.SelectorExpr:
			entry = fn.Sel.Name
		}
		return false
	})
	return entry
}

// native stack dumps (runtime.Stack(buf, true), or the dump of a fatal
// "all goroutines are asleep" error).
var goroutineHeaderRE = regexp.MustCompile(`^goroutine (\d+)(?: gp=\S+ m=\S+(?: mp=\S+)?)? \[([^\]]*)\]:$`)

// ParseStacks returns the goroutines of a stack dump that run one of the
// kernel's functions. Goroutines in a state that is not blocking (running,
// runnable, sleep, syscall) are returned with an empty Wait.
func (k *Kernel) ParseStacks(dump string) []Blocked {
	var bs []Blocked
	blocks := strings.Split(strings.ReplaceAll(dump, "\r", ""), "\n\n")
	for _, blk := range blocks {
		lines := strings.Split(strings.TrimSpace(blk), "\n")
		if len(lines) < 2 {
			continue
		}
		m := goroutineHeaderRE.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		reason := m[2]
		if i := strings.Index(reason, ","); i >= 0 {
			reason = reason[:i] // "chan receive, 2 minutes"
		}
		reason = strings.TrimSuffix(reason, " (leaked)")
		b := Blocked{ID: m[1], Wait: HeddleWait(reason), Raw: lines[0]}
		if b.Wait == "" {
			b.Wait = "[" + reason + "]"
		}
		var frames []string
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") {
				continue
			}
			if strings.HasPrefix(l, "created by ") {
				c := strings.TrimPrefix(l, "created by ")
				if i := strings.Index(c, " in goroutine"); i >= 0 {
					c = c[:i]
				}
				b.Creator = c
				continue
			}
			fn := l
			if i := strings.LastIndex(fn, "("); i > 0 {
				fn = fn[:i]
			}
			frames = append(frames, fn)
		}
		inKernel := false
		for _, fn := range frames {
			if (strings.HasPrefix(fn, ModuleName+".") || strings.HasPrefix(fn, "main.")) && k.base(fn) != "" {
				if b.Func == "" {
					b.Func = fn
				}
				inKernel = true
			}
		}
		if !inKernel {
			continue
		}
		if len(frames) > 0 {
			b.Entry = k.base(frames[len(frames)-1])
		}
		bs = append(bs, b)
	}
	return bs
}

// base returns the kernel function a (possibly compiler-mangled) function
// name belongs to, or "" if none. The compiler names closures and inlined
// bodies after every function they sit in ("goker.TestKernel.func1.Syncthing5795.1",
// "goker.(*S).processRaft-fm.(*S).processRaft.func1"): the innermost
// kernel function in the name is the one that counts.
func (k *Kernel) base(fn string) string {
	fn = strings.TrimSpace(fn)
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	for _, p := range []string{ModuleName + ".", "main."} {
		fn = strings.TrimPrefix(fn, p)
	}
	// Split at the dots outside parentheses.
	var toks []string
	depth, start := 0, 0
	for i := 0; i < len(fn); i++ {
		switch fn[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '.':
			if depth == 0 {
				toks = append(toks, fn[start:i])
				start = i + 1
			}
		}
	}
	toks = append(toks, fn[start:])
	for i := range toks {
		toks[i] = strings.TrimSuffix(toks[i], "-fm")
	}
	found := ""
	for i, t := range toks {
		if k.Funcs[t] {
			found = t
		}
		if i+1 < len(toks) && k.Funcs[t+"."+toks[i+1]] {
			found = t + "." + toks[i+1]
		}
	}
	return found
}
