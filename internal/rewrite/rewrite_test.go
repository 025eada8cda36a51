package rewrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// appModule is a small user module: a package under test with internal and
// external tests, a main-module dependency, a dependency module that uses
// sync and goroutines, and one that uses neither.
func appModule(t *testing.T) string {
	root := repoRoot(t)
	files := map[string]string{
		"app.go": `package app

import (
	"sync"

	"example.com/app/internal/util"
	"example.com/dep"
	"example.com/plain"
)

type Store struct {
	mu sync.Mutex
	m  map[string]int
}

func (s *Store) Put(k string, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = v
}

func Fanout(n int) int {
	ch := make(chan int)
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func(i int) { ch <- plain.Double(i) }(i)
	}
	total := 0
	for i := 0; i < n; i++ {
		select {
		case v := <-ch:
			total += v
		case <-done:
			return -1
		}
	}
	return total + util.Count() + dep.Run(2)
}
`,
		"app_test.go": `package app

import "testing"

func TestFanout(t *testing.T) {
	if got := Fanout(3); got < 0 {
		t.Fatalf("Fanout = %d", got)
	}
}
`,
		"ext_test.go": `package app_test

import (
	"testing"

	"example.com/app"
)

func TestStore(t *testing.T) {
	s := &app.Store{}
	_ = s
	t.Log("ok")
}
`,
		"internal/util/util.go": `package util

import "sync"

var once sync.Once
var n int

func Count() int {
	once.Do(func() { n++ })
	return n
}
`,
		"internal/unused/unused.go": `package unused

func Never() { go func() {}() }
`,
		"_dep/go.mod": "module example.com/dep\n\ngo 1.21\n",
		"_dep/dep.go": `package dep

import "sync"

func Run(n int) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}
`,
		"_plain/go.mod":   "module example.com/plain\n\ngo 1.21\n",
		"_plain/plain.go": "package plain\n\nfunc Double(x int) int { return 2 * x }\n",
	}
	dir := tempModule(t, files)
	// The go line must not be older than heddle.dev's, or the go command
	// wants to raise it (see NEEDS.md).
	gomod := "module example.com/app\n\ngo 1.26.8\n\nrequire (\n\texample.com/dep v0.0.0\n\texample.com/plain v0.0.0\n\theddle.dev v0.0.0\n)\n\n" +
		"replace heddle.dev => " + root + "\n\nreplace example.com/dep => ./_dep\n\nreplace example.com/plain => ./_plain\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRewriteModule(t *testing.T) {
	dir := appModule(t)
	cache := t.TempDir()
	var verbose strings.Builder
	before := rewriteCount
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"."}, Env: goEnv(), CacheDir: cache, Verbose: &verbose})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/app"}; !reflect.DeepEqual(res.Tested, want) {
		t.Errorf("Tested = %v, want %v", res.Tested, want)
	}
	wantPkgs := []string{"example.com/app", "example.com/app/internal/util", "example.com/app_test", "example.com/dep"}
	if !reflect.DeepEqual(res.Packages, wantPkgs) {
		t.Errorf("Packages = %v, want %v", res.Packages, wantPkgs)
	}
	for _, f := range []string{"app.go", "app_test.go", "ext_test.go", "internal/util/util.go"} {
		orig := filepath.Join(dir, f)
		out, ok := res.Overlay[orig]
		if !ok {
			t.Errorf("no overlay for %s (overlay %v)", f, res.Overlay)
			continue
		}
		if !strings.HasPrefix(out, cache) {
			t.Errorf("overlay of %s is %s, outside the cache %s", f, out, cache)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `heddlert "heddle.dev/rt"`) || !strings.Contains(string(b), "//line "+orig+":") {
			t.Errorf("%s: rewritten file lacks the rt import or line directives:\n%s", f, b)
		}
		if len(res.Files[orig]) != 64 {
			t.Errorf("Files[%s] = %q, want a sha256", f, res.Files[orig])
		}
	}
	if len(res.Overlay) != 4 {
		t.Errorf("overlay has %d files, want 4: %v", len(res.Overlay), res.Overlay)
	}
	copyDir, ok := res.Replace["example.com/dep"]
	if !ok || len(res.Replace) != 1 {
		t.Fatalf("Replace = %v, want example.com/dep only", res.Replace)
	}
	b, err := os.ReadFile(filepath.Join(copyDir, "dep.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "heddlert.WaitGroupWait(&wg)") || !strings.Contains(string(b), "heddlert.GoAs(") {
		t.Errorf("dependency copy not rewritten:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(copyDir, "go.mod")); err != nil {
		t.Errorf("dependency copy lacks go.mod: %v", err)
	}
	orig, _ := os.ReadFile(filepath.Join(dir, "_dep", "dep.go"))
	if strings.Contains(string(orig), "heddlert") {
		t.Errorf("original dependency file was modified")
	}
	v := verbose.String()
	for _, want := range []string{"rewrite example.com/app: package under test", "rewrite example.com/app/internal/util: main-module package", "rewrite example.com/dep: dependency (module example.com/dep) imports \"sync\""} {
		if !strings.Contains(v, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "example.com/plain") || strings.Contains(v, "internal/unused") {
		t.Errorf("verbose output mentions packages that need no rewrite:\n%s", v)
	}
	if rewriteCount == before {
		t.Errorf("nothing was rewritten")
	}

	// The same input again: everything comes from the cache.
	before = rewriteCount
	res2, err := Rewrite(Options{Dir: dir, Env: goEnv(), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if rewriteCount != before {
		t.Errorf("second Rewrite rewrote %d files, want 0 (cache)", rewriteCount-before)
	}
	if !reflect.DeepEqual(res, res2) {
		t.Errorf("second Rewrite differs:\n%+v\n%+v", res, res2)
	}

	// The rewritten module builds (and vets its tests) with the overlay
	// and a replace directive for the copied dependency.
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	modOverlay := filepath.Join(t.TempDir(), "go.mod")
	newMod := strings.Replace(string(gomod), "replace example.com/dep => ./_dep", "replace example.com/dep => "+copyDir, 1)
	if err := os.WriteFile(modOverlay, []byte(newMod), 0o644); err != nil {
		t.Fatal(err)
	}
	ov := map[string]string{filepath.Join(dir, "go.mod"): modOverlay}
	for k, v := range res.Overlay {
		ov[k] = v
	}
	ovFile := filepath.Join(t.TempDir(), "overlay.json")
	writeOverlay(t, ovFile, ov)
	cmd := exec.Command("go", "test", "-vet=off", "-overlay", ovFile, "-run", "^$", ".")
	cmd.Dir = dir
	cmd.Env = goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("rewritten module does not build: %v\n%s", err, out)
	}
}

func TestRewriteErrors(t *testing.T) {
	dir := tempModule(t, map[string]string{
		"good/good.go": "package good\n\nfunc F() {}\n",
		"bad/bad.go":   "package bad\n\nfunc F() int {\n\treturn \"x\"\n}\n\nfunc G() { undefinedName() }\n",
	})
	_, err := Rewrite(Options{Dir: dir, Patterns: []string{"./nope"}, Env: goEnv(), CacheDir: t.TempDir()})
	if err == nil || err.Error() != `no packages match "./nope"` {
		t.Errorf("missing package: err = %v, want no packages match \"./nope\"", err)
	}
	_, err = Rewrite(Options{Dir: dir, Patterns: []string{"./bad"}, Env: goEnv(), CacheDir: t.TempDir()})
	if err == nil {
		t.Fatal("type errors not reported")
	}
	lines := strings.Split(err.Error(), "\n")
	bad := filepath.Join(dir, "bad", "bad.go")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], bad+":4:9: ") || !strings.HasPrefix(lines[1], bad+":7:12: ") {
		t.Errorf("type errors = %q, want two lines at %s:4:9 and :7:12", err, bad)
	}
	res, err := Rewrite(Options{Dir: dir, Patterns: []string{"./good"}, Env: goEnv(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Overlay) != 0 || len(res.Packages) != 0 || !reflect.DeepEqual(res.Tested, []string{"golden/good"}) {
		t.Errorf("package without concurrency: %+v", res)
	}
}
