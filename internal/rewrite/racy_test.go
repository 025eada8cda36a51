package rewrite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// racySrc marks its racy lines with a comment "racy:r:g" or "racy:w:g"
// (read or write, group g).
const racySrc = `package racy

import "log"

var flag bool

type Lazy struct {
	v     *int
	inits int
	m     map[string]int
	s     []int
}

var initial = len(pkgMap) // racy:r:pkg

var pkgMap = map[int]int{}

func (l *Lazy) Get() *int {
	if l.v == nil { // racy:r:a
		l.inits++
		l.v = new(int) // racy:w:a
	}
	return l.v // racy:r:a
}

func (l *Lazy) Spin() {
	for !flag { // racy:r:b
	}
	if l.v != nil {
	} else if l.inits > 0 { // racy:r:a
	}
	for k := range l.m { // racy:r:c
		_ = k
	}
	for l.m["q"] == 0 { // racy:r:c
	}
	if flag {
	} else if l.m["r"] > 0 { // racy:r:c
	}
	go func() { l.s = append(l.s, 1) }() // racy:w:d
	switch len(l.s) { // racy:r:d
	case 0:
		l.m["x"] = 1 // racy:w:c
	}
}

func (l *Lazy) Maps(m map[int]int) int {
	v, ok := l.m["y"] // racy:r:c
	_ = flag && l.m["z"] > 0 // racy:r:c
	l.m["w"] = compute() // racy:w:c
	delete(m, v) // racy:w:e
	if ok {
		return m[1] // racy:r:e
	}
	ch := make(chan int, 1)
	ch <- m[2] // racy:r:e
	log.Printf("%v %d", l.m, v) // racy:r:c
	log.Printf("%p", l.m) // racy:r:c
	log.Println(m, v) // none
	return 0
}

func compute() int { return 0 }

func (l *Lazy) Count(n int) {
	l.inits++ // racy:w:f
	flag2 += n << 1 // racy:w:f
	l.s[0]++ // racy:w:f
}

var flag2 int
`

func TestRacyPoints(t *testing.T) {
	dir := tempModule(t, map[string]string{"racy/racy.go": racySrc})
	path := filepath.Join(dir, "racy", "racy.go")
	mark := regexp.MustCompile(`// racy:([rw]):(\w+)`)
	var stmts []RacyStmt
	for i, l := range strings.Split(racySrc, "\n") {
		if m := mark.FindStringSubmatch(l); m != nil {
			stmts = append(stmts, RacyStmt{File: path, Line: i + 1, Write: m[1] == "w", Group: m[2]})
		}
	}
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"./racy"}, Env: goEnv(), CacheDir: t.TempDir(), Racy: stmts})
	if err != nil {
		t.Fatal(err)
	}
	// The package-level initializer is not in a function: no point.
	if len(res.RacyMissed) != 1 || res.RacyMissed[0].Group != "pkg" {
		t.Errorf("missed %v, want the package-level initializer only", res.RacyMissed)
	}
	out, err := os.ReadFile(res.Overlay[path])
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	// The groups that share a variable merged (racyExpand): a, d and f
	// (l.inits, l.s), b and c (flag).
	for _, want := range []string{
		// Before the check and the act.
		`heddlert.RacyRead("a"); if l.v == nil`,
		// A plain assignment is captured, address and value, into the
		// store buffer (rt.RacySet); a read point before it if its
		// value reads memory.
		`heddlert.RacySet(&l.v, new(int), "a")`,
		`heddlert.RacyRead("a"); return l.v`,
		// Once per iteration of a spin loop.
		`for heddlert.RacyRead("b") && (!flag)`,
		// A lookup in a loop's or an else-if's condition: checked at
		// each evaluation, standing for the group.
		`for heddlert.MapRead(l.m, "b") && (l.m["q"] == 0)`,
		`else if heddlert.MapRead(l.m, "b") && (l.m["r"] > 0)`,
		// In an else-if's condition.
		`else if heddlert.RacyRead("a") && (l.inits > 0)`,
		// Inside the function literal, not before the go statement.
		`func() { heddlert.RacyRead("a"); heddlert.RacySet(&l.s, append(l.s, 1), "a") }`,
		// Before a switch, and in a case's body.
		`heddlert.RacyRead("a"); switch len(l.s)`,
		// Map statements: a write between two points, a lookup
		// checked before, the steps standing for the group (no group
		// step of their own); not the lookup right of &&, not the
		// write whose right side calls a function.
		`heddlert.MapWriteBegin(l.m, "b"); l.m["x"] = 1; heddlert.MapWriteEnd(l.m, "b")`,
		`heddlert.MapRead(l.m, "b"); v, ok := l.m["y"]`,
		`heddlert.RacyRead("b"); _ = flag && l.m["z"] > 0`,
		`heddlert.RacyWrite("b"); l.m["w"] = compute()`,
		`heddlert.MapWriteBegin(m, "e"); delete(m, v); heddlert.MapWriteEnd(m, "e")`,
		`heddlert.MapRead(m, "e"); return m[1]`,
		// A lookup in a send's value: before the send (its step is the
		// send's, after the value).
		`heddlert.MapRead(m, "e"); heddlert.Send(ch, m[2])`,
		// A map printed by log (or t.Errorf) on a racy line is copied
		// as fmt's iteration goes; not for %p, nor on other lines.
		`heddlert.LogPrintf("%v %d", heddlert.RacyArg(l.m), v)`,
		`heddlert.LogPrintf("%p", l.m)`,
		`heddlert.LogPrintln(m, v)`,
		// A read-modify-write of a variable or a field path: the read
		// before it, the write a point of its own after the read.
		`heddlert.RacyRead("a"); heddlert.RacySet(&l.inits, l.inits+1, "a")`,
		`heddlert.RacyRead("a"); heddlert.RacySet(&flag2, flag2+(n<<1), "a")`,
		// Not of a slice element: one point, the statement atomic.
		`heddlert.RacyWrite("a"); l.s[0]++`,
	} {
		if !strings.Contains(squeeze(got), squeeze(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, got)
		}
	}
	// A range over the map: before the loop, and in each iteration.
	if n := strings.Count(got, `heddlert.MapIter(l.m, "b")`); n != 2 {
		t.Errorf("%d iteration checks for the range over the map, want 2 (before it, and per iteration):\n%s", n, got)
	}
	// A statement whose map steps stand for its group has no group step
	// besides: one scheduling point, not two placed independently.
	for _, re := range []string{`heddlert\.Racy(Read|Write)\("[a-z]"\); heddlert\.Map`, `heddlert\.MapIter\(l\.m, "b"\); heddlert\.Racy`} {
		if regexp.MustCompile(re).MatchString(squeeze(got)) {
			t.Errorf("a group step next to a map step (%s):\n%s", re, got)
		}
	}
	cfg := &packages.Config{Mode: fullMode, Dir: dir, Env: goEnv(), Overlay: map[string][]byte{path: out}}
	pkgs, err := packages.Load(cfg, "./racy")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadErrors(pkgs); err != nil {
		t.Errorf("rewritten file does not type-check:\n%v\n%s", err, got)
	}
}

// squeeze replaces every run of white space and line directives by one
// space, and semicolons and newlines between statements by "; ".
func squeeze(s string) string {
	s = regexp.MustCompile(`/\*line [^*]*\*/`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`//line .*\n`).ReplaceAllString(s, "\n")
	s = regexp.MustCompile(`\s*\n\s*`).ReplaceAllString(s, "; ")
	s = regexp.MustCompile(`[ \t]+`).ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "{; ", "{ ")
	s = strings.ReplaceAll(s, "; }", " }")
	return s
}

// expandSrc marks the racy lines a -race round reported with "racy:r:g"
// or "racy:w:g", and the lines the expansion must add with "add:r:g" or
// "add:w:g"; "none" lines must get no point.
const expandSrc = `package racy

import "sync"

type counter struct{ n, other int }

var global int

func Race() int {
	z := 0
	var wg sync.WaitGroup
	c := &counter{}
	wg.Add(2)
	go func() {
		defer wg.Done()
		l := 0 // none
		if z == 0 { // racy:r:g1
			z = 2 // racy:w:g1
		}
		l++ // none
		c.n++ // racy:w:g2
		global = l // racy:w:g3
	}()
	go func() {
		defer wg.Done()
		z = 3 // racy:w:g1
		c.other++ // none
	}()
	z = 10 // add:w:g1
	z++ // add:w:g1
	_ = c.n // add:r:g2
	wg.Wait() // none
	return z + global // add:r:g1
}

func other(c *counter) int {
	return c.n // add:r:g2
}
`

// TestRacyExpand: the statements that access a shared variable a racy
// statement accesses get scheduling points in its group (conformance's
// TestRacy0017: the -race rounds named z = 10 and never z++); locals of
// one goroutine, other fields and the pointer a field is reached through
// do not.
func TestRacyExpand(t *testing.T) {
	dir := tempModule(t, map[string]string{"racy/racy.go": expandSrc})
	path := filepath.Join(dir, "racy", "racy.go")
	mark := regexp.MustCompile(`// (racy|add|none)(?::([rw]):(\w+))?`)
	var stmts []RacyStmt
	added := map[int]RacyStmt{}
	none := map[int]bool{}
	for i, l := range strings.Split(expandSrc, "\n") {
		m := mark.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := RacyStmt{File: path, Line: i + 1, Write: m[2] == "w", Group: m[3]}
		switch m[1] {
		case "racy":
			stmts = append(stmts, s)
		case "add":
			added[s.Line] = s
		default:
			none[s.Line] = true
		}
	}
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"./racy"}, Env: goEnv(), CacheDir: t.TempDir(), Racy: stmts})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]RacyStmt{}
	for _, s := range res.RacyAdded {
		got[s.Line] = s
	}
	for line, want := range added {
		if g, ok := got[line]; !ok || g.Write != want.Write || g.Group != want.Group {
			t.Errorf("line %d: added %+v, want %+v", line, g, want)
		}
	}
	for line, g := range got {
		if _, ok := added[line]; !ok {
			t.Errorf("line %d: added %+v, want no point (none: %v)", line, g, none[line])
		}
	}
	out, err := os.ReadFile(res.Overlay[path])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`heddlert.RacySet(&z, 10, "g1")`,
		`heddlert.RacyRead("g1"); heddlert.RacySet(&z, z+1, "g1")`,
	} {
		if !strings.Contains(squeeze(string(out)), squeeze(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, out)
		}
	}
}

// racyMapsSrc calls the functions of package maps on racy lines (marked as
// in racySrc) and on a line that is not.
const racyMapsSrc = `package racy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
)

func Maps(m, dst map[int]int) int {
	maps.Copy(dst, m) // racy:w:a
	c := maps.Clone(m) // racy:r:a
	if maps.Equal(m, c) { // racy:r:a
		return 0
	}
	_ = maps.EqualFunc(m, c, func(a, b int) bool { return a == b }) // racy:r:a
	maps.DeleteFunc[map[int]int](m, func(k, v int) bool { return k > 0 }) // racy:w:a
	for k := range maps.Keys(m) { // racy:r:a
		_ = k
	}
	n := len(slices.Collect(maps.Values(m))) // racy:r:a
	maps.Insert(dst, maps.All(m)) // racy:w:a
	maps.Copy(c, m)
	s := fmt.Sprint(m) // racy:r:a
	fmt.Printf("%v\n", m) // racy:r:a
	fmt.Fprintln(os.Stderr, m, s) // racy:r:a
	b, _ := json.Marshal(m) // racy:r:a
	_ = fmt.Sprint(m, b)
	v := reflect.ValueOf(m)
	_ = v.MapIndex(reflect.ValueOf(1)) // racy:r:a
	v.SetMapIndex(reflect.ValueOf(2), reflect.ValueOf(3)) // racy:w:a
	ks := v.MapKeys() // racy:r:a
	it := v.MapRange()
	for it.Next() { // racy:r:a
		_ = ks
	}
	pv := &v
	_ = pv.MapIndex(reflect.ValueOf(1)) // racy:r:a
	_ = v.MapIndex(reflect.ValueOf(4))
	return n
}
`

// TestRacyMapFuncs: a call of package maps on a racy line calls rt's
// wrapper, which models its map accesses (rt/racymaps.go); on any other
// line it stays.
func TestRacyMapFuncs(t *testing.T) {
	dir := tempModule(t, map[string]string{"racy/racy.go": racyMapsSrc})
	path := filepath.Join(dir, "racy", "racy.go")
	mark := regexp.MustCompile(`// racy:([rw]):(\w+)`)
	var stmts []RacyStmt
	for i, l := range strings.Split(racyMapsSrc, "\n") {
		if m := mark.FindStringSubmatch(l); m != nil {
			stmts = append(stmts, RacyStmt{File: path, Line: i + 1, Write: m[1] == "w", Group: m[2]})
		}
	}
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"./racy"}, Env: goEnv(), CacheDir: t.TempDir(), Racy: stmts})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(res.Overlay[path])
	if err != nil {
		t.Fatal(err)
	}
	got := squeeze(string(out))
	for _, want := range []string{
		`heddlert.MapsCopy(dst, m)`,
		`c := heddlert.MapsClone(m)`,
		`if heddlert.MapsEqual(m, c)`,
		`_ = heddlert.MapsEqualFunc(m, c, func(a, b int) bool`,
		`heddlert.MapsDeleteFunc[map[int]int](m, func(k, v int) bool`,
		`range heddlert.MapsKeys(m)`,
		`slices.Collect(heddlert.MapsValues(m))`,
		`heddlert.MapsInsert(dst, heddlert.MapsAll(m))`,
		`s := heddlert.RacySprint(m)`,
		`heddlert.RacyPrintf("%v\n", m)`,
		`heddlert.RacyFprintln(os.Stderr, m, s)`,
		`b, _ := heddlert.RacyJSONMarshal(m)`,
		`_ = heddlert.ReflectMapIndex(v, reflect.ValueOf(1))`,
		`heddlert.ReflectSetMapIndex(v, reflect.ValueOf(2), reflect.ValueOf(3))`,
		`ks := heddlert.ReflectMapKeys(v)`,
		`heddlert.ReflectMapIterNext(it)`,
		`_ = heddlert.ReflectMapIndex(*pv, reflect.ValueOf(1))`,
		// Not racy: unchanged.
		`maps.Copy(c, m)`,
		`_ = v.MapIndex(reflect.ValueOf(4))`,
		`_ = fmt.Sprint(m, b)`,
	} {
		if !strings.Contains(got, squeeze(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, out)
		}
	}
	cfg := &packages.Config{Mode: fullMode, Dir: dir, Env: goEnv(), Overlay: map[string][]byte{path: out}}
	pkgs, err := packages.Load(cfg, "./racy")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadErrors(pkgs); err != nil {
		t.Errorf("rewritten file does not type-check:\n%v\n%s", err, out)
	}
}

// racyPrintSrc prints a map with testing's printing methods on racy lines
// (marked as in racySrc).
const racyPrintSrc = `package racy

import "testing"

type holder struct{ m map[int]int }

func TestPrint(t *testing.T) {
	m := map[int]int{}
	h := &holder{m: m}
	go func() { m[1] = 1 }()
	t.Errorf("%v", m) // racy:r:a
	t.Log(h, 1) // racy:r:a
	var tb testing.TB = t
	tb.Logf("%d %v", 1, m) // racy:r:a
	other := map[int]int{}
	t.Logf("%v", other)
}
`

// TestRacyPrintArgs: t.Errorf, t.Log and testing.TB's Logf on a racy line
// get the maps they print copied as fmt's iteration goes (rt.RacyArg),
// arguments that cannot hold one left as they are, and the rewritten file
// type-checks.
func TestRacyPrintArgs(t *testing.T) {
	dir := tempModule(t, map[string]string{"racy/racy_test.go": racyPrintSrc})
	path := filepath.Join(dir, "racy", "racy_test.go")
	mark := regexp.MustCompile(`// racy:([rw]):(\w+)`)
	var stmts []RacyStmt
	for i, l := range strings.Split(racyPrintSrc, "\n") {
		if m := mark.FindStringSubmatch(l); m != nil {
			stmts = append(stmts, RacyStmt{File: path, Line: i + 1, Write: m[1] == "w", Group: m[2]})
		}
	}
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"./racy"}, Env: goEnv(), CacheDir: t.TempDir(), Racy: stmts})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(res.Overlay[path])
	if err != nil {
		t.Fatal(err)
	}
	got := squeeze(string(out))
	for _, want := range []string{
		`Errorf("%v", heddlert.RacyArg(m))`,
		`Log(heddlert.RacyArg(h), 1)`,
		`Logf("%d %v", 1, heddlert.RacyArg(m))`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(got, "RacyArg("); n != 3 {
		t.Errorf("%d arguments copied, want 3 (not on a line that is not racy):\n%s", n, out)
	}
	cfg := &packages.Config{Mode: fullMode, Dir: dir, Env: goEnv(), Tests: true, Overlay: map[string][]byte{path: out}}
	pkgs, err := packages.Load(cfg, "./racy")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadErrors(pkgs); err != nil {
		t.Errorf("rewritten file does not type-check:\n%v\n%s", err, out)
	}
}
