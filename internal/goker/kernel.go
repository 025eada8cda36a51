// Package goker measures heddle on the GoKer blocking-bug kernels that ship
// with the Go toolchain ($GOROOT/src/runtime/testdata/testgoroutineleakprofile/goker),
// side by side with native stress testing. The kernels are read from GOROOT at
// run time and copied only into temporary modules outside the repository.
// docs/goker.md explains the harness; cmd/goker is its command.
package goker

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Dir is the directory of the kernels inside GOROOT.
const Dir = "src/runtime/testdata/testgoroutineleakprofile/goker"

// expectedFile lists, per kernel, the leaks the Go runtime's own test expects.
const expectedFile = "src/runtime/goroutineleakprofile_test.go"

// Kernel is one GoKer kernel.
type Kernel struct {
	Name     string // the registered function, e.g. "Cockroach10214"
	File     string // the kernel's file name, e.g. "cockroach10214.go"
	Key      string // file name without .go, e.g. "cockroach10214"
	Src      []byte // the kernel file as shipped
	Main     []byte // main.go of the kernel directory (register, yieldCount)
	Class    string // GoBench bug type, e.g. "Resource Deadlock"
	Subclass string // GoBench subtype, e.g. "AB-BA deadlock"

	// Expected are the leaks the Go runtime's test expects for this kernel.
	Expected []Leak
	// Funcs are the functions and methods the kernel file declares, as Go
	// names them in stacks without the package: "F", "(*T).M", "T.M".
	Funcs map[string]bool
}

// Leak is one expected leak: a goroutine whose function matches Func and
// that waits in one of Waits (heddle's descriptions of blocked operations).
type Leak struct {
	Pattern string   // the regexp of goroutineleakprofile_test.go
	Func    string   // its function, closure suffixes included: "Cockroach1055.func2.1"
	Base    string   // Func without closure suffixes: "Cockroach1055"
	Reason  string   // the Go wait reason regexp: "sync\.Mutex\.Lock"
	Waits   []string // heddle's descriptions it maps to: "Lock"
	Flaky   bool     // makeFlakyTest in the Go test
	Comment bool     // from a commented-out test case (Kubernetes1321)
}

// goWaits maps the Go runtime's wait reasons to heddle's descriptions of a
// blocked operation (internal/explore/report.go, describe).
var goWaits = []struct{ reason, heddle string }{
	{"chan receive", "receive from channel"},
	{"chan receive (nil chan)", "receive from channel"},
	{"chan send", "send on channel"},
	{"chan send (nil chan)", "send on channel"},
	{"select", "select"},
	{"select (no cases)", "select {}"},
	{"sync.Mutex.Lock", "Lock"},
	// sync.Once.Do waits on the Once's internal mutex.
	{"sync.Mutex.Lock", "Once.Do"},
	{"sync.RWMutex.Lock", "Lock"},
	{"sync.RWMutex.RLock", "RLock"},
	{"sync.WaitGroup.Wait", "WaitGroup.Wait"},
	{"sync.Cond.Wait", "Cond.Wait"},
}

// HeddleWait returns heddle's description for a Go wait reason, or "".
func HeddleWait(reason string) string {
	for _, w := range goWaits {
		if w.reason == reason {
			return w.heddle
		}
	}
	return ""
}

// Load reads the kernels of goroot.
func Load(goroot string) ([]*Kernel, error) {
	dir := filepath.Join(goroot, Dir)
	mainSrc, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		return nil, err
	}
	expSrc, err := os.ReadFile(filepath.Join(goroot, expectedFile))
	if err != nil {
		return nil, err
	}
	expected, err := parseExpected(string(expSrc))
	if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var ks []*Kernel
	for _, path := range names {
		base := filepath.Base(path)
		if base == "main.go" {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		k := &Kernel{File: base, Key: strings.TrimSuffix(base, ".go"), Src: src, Main: mainSrc}
		if err := k.inspect(); err != nil {
			return nil, fmt.Errorf("%s: %v", base, err)
		}
		if c, ok := classes[k.Key]; ok {
			k.Class, k.Subclass = c[0], c[1]
		}
		k.Expected = expected[k.Name]
		if len(k.Expected) == 0 {
			return nil, fmt.Errorf("%s: no expected leaks for %s in %s", base, k.Name, expectedFile)
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("no kernels in %s", dir)
	}
	return ks, nil
}

var registerRE = regexp.MustCompile(`register\("(\w+)",\s*(\w+)\)`)

// inspect finds the registered function and the declared functions.
func (k *Kernel) inspect() error {
	m := registerRE.FindSubmatch(k.Src)
	if m == nil {
		return fmt.Errorf("no register call")
	}
	k.Name = string(m[2])
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, k.File, k.Src, 0)
	if err != nil {
		return err
	}
	k.Funcs = map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			k.Funcs[declName(fd)] = true
		}
	}
	if !k.Funcs[k.Name] {
		return fmt.Errorf("registered function %s not declared", k.Name)
	}
	return nil
}

// declName is the name of fd as in a stack trace, without the package.
func declName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, _ := t.(*ast.Ident)
	name := "?"
	if id != nil {
		name = id.Name
	}
	if star {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

// closureRE strips the closure and go-wrapper suffixes Go adds to names.
var closureRE = regexp.MustCompile(`\.(func|gowrap)\d+.*$`)

// Base returns a function name of the Go runtime's expected leaks without
// closure suffixes: "(*T).M.func1.2" -> "(*T).M".
func Base(fn string) string {
	fn = strings.TrimPrefix(strings.TrimSpace(fn), "main.")
	return closureRE.ReplaceAllString(fn, "")
}

// method returns the method name of a base "(*T).M" or "T.M", or the base.
func method(base string) string {
	if i := strings.LastIndex(base, "."); i >= 0 {
		return base[i+1:]
	}
	return base
}

var (
	caseRE    = regexp.MustCompile(`make(Flaky)?Test\((?:testCase\{name: )?"(\w+)"`)
	patternRE = regexp.MustCompile("`([^`]*)`")
)

// parseExpected reads the goker test cases of goroutineleakprofile_test.go,
// including the commented-out one (Kubernetes1321, excluded there for a
// crash unrelated to its leak): kernel name -> leaks.
func parseExpected(src string) (map[string][]Leak, error) {
	i := strings.Index(src, "gokerTestCases := []testCase{")
	if i < 0 {
		return nil, fmt.Errorf("%s: no gokerTestCases", expectedFile)
	}
	src = src[i:]
	if j := strings.Index(src, "\n\t}\n"); j >= 0 {
		src = src[:j]
	}
	out := map[string][]Leak{}
	name, flaky, comment := "", false, false
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		isComment := strings.HasPrefix(t, "//")
		t = strings.TrimSpace(strings.TrimPrefix(t, "//"))
		if m := caseRE.FindStringSubmatch(t); m != nil {
			name, flaky, comment = m[2], m[1] != "", isComment
		}
		if name == "" {
			continue
		}
		for _, p := range patternRE.FindAllStringSubmatch(t, -1) {
			l, err := parseLeak(p[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", expectedFile, name, err)
			}
			l.Flaky, l.Comment = flaky, comment
			out[name] = append(out[name], l)
		}
	}
	return out, nil
}

// parseLeak splits a pattern such as
// `\(\*Store_cockroach3710\)\.processRaft\.func1\(.* \[sync\.RWMutex\.Lock\]`.
func parseLeak(p string) (Leak, error) {
	l := Leak{Pattern: p}
	i := strings.LastIndex(p, ` \[`)
	if i < 0 || !strings.HasSuffix(p, `\]`) {
		return l, fmt.Errorf("pattern %q: no wait reason", p)
	}
	l.Reason = p[i+3 : len(p)-2]
	fn := p[:i]
	fn = strings.TrimSuffix(fn, ".*")
	fn = strings.TrimSuffix(fn, `\(`)
	fn = strings.ReplaceAll(fn, `\`, "")
	l.Func = fn
	l.Base = Base(fn)
	re, err := regexp.Compile("^(?:" + l.Reason + ")$")
	if err != nil {
		return l, err
	}
	seen := map[string]bool{}
	for _, w := range goWaits {
		if re.MatchString(w.reason) && !seen[w.heddle] {
			seen[w.heddle] = true
			l.Waits = append(l.Waits, w.heddle)
		}
	}
	if len(l.Waits) == 0 {
		return l, fmt.Errorf("pattern %q: wait reason %q maps to no heddle operation", p, l.Reason)
	}
	return l, nil
}

// classes is GoBench's classification of the blocking GoKer bugs
// (gobench/configures/goker/blocking.json, as tabulated in
// ../shared/reference/landscape.md Appendix A), keyed by kernel file name.
var classes = map[string][2]string{
	"cockroach1055":   {"Mixed Deadlock", "Channel & WaitGroup"},
	"cockroach10214":  {"Resource Deadlock", "AB-BA deadlock"},
	"cockroach10790":  {"Communication Deadlock", "Channel & Context"},
	"cockroach13197":  {"Communication Deadlock", "Channel & Context"},
	"cockroach13755":  {"Communication Deadlock", "Channel & Context"},
	"cockroach1462":   {"Mixed Deadlock", "Channel & WaitGroup"},
	"cockroach16167":  {"Resource Deadlock", "RWR deadlock"},
	"cockroach18101":  {"Communication Deadlock", "Channel & Context"},
	"cockroach2448":   {"Communication Deadlock", "Channel"},
	"cockroach24808":  {"Communication Deadlock", "Channel"},
	"cockroach25456":  {"Communication Deadlock", "Channel"},
	"cockroach35073":  {"Communication Deadlock", "Channel"},
	"cockroach35931":  {"Communication Deadlock", "Channel"},
	"cockroach3710":   {"Resource Deadlock", "RWR deadlock"},
	"cockroach584":    {"Resource Deadlock", "Double locking"},
	"cockroach6181":   {"Resource Deadlock", "RWR deadlock"},
	"cockroach7504":   {"Resource Deadlock", "AB-BA deadlock"},
	"cockroach9935":   {"Resource Deadlock", "Double locking"},
	"etcd10492":       {"Resource Deadlock", "Double locking"},
	"etcd5509":        {"Resource Deadlock", "Double locking"},
	"etcd6708":        {"Resource Deadlock", "Double locking"},
	"etcd6857":        {"Communication Deadlock", "Channel"},
	"etcd6873":        {"Mixed Deadlock", "Channel & Lock"},
	"etcd7443":        {"Mixed Deadlock", "Channel & Lock"},
	"etcd7492":        {"Mixed Deadlock", "Channel & Lock"},
	"etcd7902":        {"Mixed Deadlock", "Channel & Lock"},
	"grpc1275":        {"Communication Deadlock", "Channel"},
	"grpc1353":        {"Mixed Deadlock", "Channel & Lock"},
	"grpc1424":        {"Communication Deadlock", "Channel"},
	"grpc1460":        {"Mixed Deadlock", "Channel & Lock"},
	"grpc3017":        {"Resource Deadlock", "Double locking"},
	"grpc660":         {"Communication Deadlock", "Channel"},
	"grpc795":         {"Resource Deadlock", "Double locking"},
	"grpc862":         {"Communication Deadlock", "Channel & Context"},
	"hugo3251":        {"Resource Deadlock", "AB-BA deadlock"},
	"hugo5379":        {"Resource Deadlock", "Double locking"},
	"istio16224":      {"Mixed Deadlock", "Channel & Lock"},
	"istio17860":      {"Communication Deadlock", "Channel"},
	"istio18454":      {"Communication Deadlock", "Channel & Context"},
	"kubernetes10182": {"Mixed Deadlock", "Channel & Lock"},
	"kubernetes11298": {"Communication Deadlock", "Channel & Condition Variable"},
	"kubernetes13135": {"Resource Deadlock", "AB-BA deadlock"},
	"kubernetes1321":  {"Mixed Deadlock", "Channel & Lock"},
	"kubernetes25331": {"Communication Deadlock", "Channel & Context"},
	"kubernetes26980": {"Mixed Deadlock", "Channel & Lock"},
	"kubernetes30872": {"Resource Deadlock", "AB-BA deadlock"},
	"kubernetes38669": {"Communication Deadlock", "Channel"},
	"kubernetes5316":  {"Communication Deadlock", "Channel"},
	"kubernetes58107": {"Resource Deadlock", "RWR deadlock"},
	"kubernetes62464": {"Resource Deadlock", "RWR deadlock"},
	"kubernetes6632":  {"Mixed Deadlock", "Channel & Lock"},
	"kubernetes70277": {"Communication Deadlock", "Channel"},
	"moby17176":       {"Resource Deadlock", "Double locking"},
	"moby21233":       {"Communication Deadlock", "Channel"},
	"moby25384":       {"Mixed Deadlock", "Misuse WaitGroup"},
	"moby27782":       {"Communication Deadlock", "Channel & Condition Variable"},
	"moby28462":       {"Mixed Deadlock", "Channel & Lock"},
	"moby29733":       {"Communication Deadlock", "Condition Variable"},
	"moby30408":       {"Communication Deadlock", "Condition Variable"},
	"moby33293":       {"Communication Deadlock", "Channel"},
	"moby33781":       {"Communication Deadlock", "Channel & Context"},
	"moby36114":       {"Resource Deadlock", "Double locking"},
	"moby4395":        {"Communication Deadlock", "Channel"},
	"moby4951":        {"Resource Deadlock", "AB-BA deadlock"},
	"moby7559":        {"Resource Deadlock", "Double locking"},
	"serving2137":     {"Mixed Deadlock", "Channel & Lock"},
	"syncthing4829":   {"Resource Deadlock", "Double locking"},
	"syncthing5795":   {"Communication Deadlock", "Channel"},
}
