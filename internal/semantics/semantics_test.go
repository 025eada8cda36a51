package semantics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// knownWrong lists the clean tests heddle still gets wrong, by module
// directory, package and test, with the reason. They are run, and their
// results logged, but do not fail the suite.
var knownWrong = map[string]string{}

// mayHang lists the clean packages whose test binary may hang under
// heddle today: they are run on their own with a short timeout, so that the
// suite stays within CI's time.
var mayHang = map[string]string{}

// budget is the number of runs per clean test: enough to meet the
// interleavings of these small tests, small enough for CI.
const budget = "100"

// packageDirs returns "./dir" for each directory of the module at dir that
// holds Go files.
func packageDirs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		pat := "./" + filepath.ToSlash(rel)
		if len(out) == 0 || out[len(out)-1] != pat {
			out = append(out, pat)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var heddleBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "heddle-semantics-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	heddleBin = filepath.Join(dir, "heddle")
	if !testing.Short() {
		cmd := exec.Command("go", "build", "-o", heddleBin, "heddle.dev/cmd/heddle")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build heddle: %v\n%s", err, out)
			return 1
		}
	}
	os.Setenv("HEDDLE_CACHE", filepath.Join(dir, "cache"))
	return m.Run()
}

func env() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
}

// event is a heddle test -json event.
type event struct {
	Action  string
	Package string
	Test    string
	Kind    string
	Output  string
}

// result is what heddle said about one test.
type result struct {
	failed bool
	kinds  []string
	output []string
}

// heddleTest runs heddle test -json in dir and returns the results per
// "package test" (and per "package" for what concerns no test: a build
// failure or a crash of the binary).
func heddleTest(t *testing.T, dir string, args ...string) map[string]*result {
	t.Helper()
	cmd := exec.Command(heddleBin, append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("heddle test in %s: %v", dir, err)
	}
	res := map[string]*result{}
	get := func(k string) *result {
		if res[k] == nil {
			res[k] = &result{}
		}
		return res[k]
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			get("?").output = append(get("?").output, sc.Text())
			continue
		}
		key := e.Package
		if e.Test != "" {
			key += " " + strings.SplitN(e.Test, "/", 2)[0]
		}
		switch e.Action {
		case "bug":
			r := get(key)
			r.failed = true
			r.kinds = append(r.kinds, e.Kind)
		case "fail":
			get(key).failed = true
		case "output":
			r := get(key)
			r.output = append(r.output, strings.TrimRight(e.Output, "\n"))
		}
	}
	if stderr.Len() > 0 {
		get("?").output = append(get("?").output, strings.Split(strings.TrimSpace(stderr.String()), "\n")...)
	}
	return res
}

func goTest(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go test in %s (natively) failed: %v\n%s", dir, err, out)
	}
}

func excerpt(lines []string) string {
	if len(lines) > 40 {
		lines = append(lines[:40], "...")
	}
	return strings.Join(lines, "\n")
}

// TestClean: every clean test passes natively and gets no report from
// heddle.
func TestClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores test binaries")
	}
	for _, mod := range []string{"clean", "oldtimers"} {
		t.Run(mod, func(t *testing.T) {
			dir := filepath.Join("testdata", mod)
			goTest(t, dir)
			var normal []string
			res := map[string]*result{}
			for _, pat := range packageDirs(t, dir) {
				if _, hangs := mayHang[mod+"/"+strings.TrimPrefix(pat, "./")]; !hangs {
					normal = append(normal, pat)
					continue
				}
				for k, r := range heddleTest(t, dir, "-budget", budget, "-timeout", "20s", pat) {
					res[k] = r
				}
			}
			for k, r := range heddleTest(t, dir, append([]string{"-budget", budget, "-timeout", "5m"}, normal...)...) {
				if k == "?" && res[k] != nil {
					r.output = append(res[k].output, r.output...)
				}
				res[k] = r
			}
			var keys []string
			for k := range res {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			testFailed := map[string]bool{} // package -> one of its tests failed
			for _, k := range keys {
				if pkg, _, ok := strings.Cut(k, " "); ok && res[k].failed {
					testFailed[pkg] = true
				}
			}
			for _, k := range keys {
				r := res[k]
				why, known := knownWrong[mod+" "+k]
				switch {
				case k == "?":
					// heddle's own messages, not JSON.
				case !strings.Contains(k, " "):
					// A package-level failure with no failing test: it
					// did not build, or its binary crashed.
					if why, known := knownPackage(mod, k); known && r.failed {
						t.Logf("%s: package failed (known: %s)", k, why)
						break
					}
					if r.failed && !testFailed[k] {
						msgs := r.output
						if q := res["?"]; q != nil {
							msgs = append(msgs, q.output...)
						}
						t.Errorf("%s: package failed under heddle:\n%s", k, excerpt(msgs))
					}
				case r.failed && known:
					t.Logf("%s: still wrong (known: %s): %v", k, why, r.kinds)
				case r.failed:
					t.Errorf("%s: heddle reported %v on a correct test:\n%s", k, r.kinds, excerpt(r.output))
				case known:
					t.Errorf("%s: now passes under heddle; remove it from knownWrong (%s)", k, why)
				}
			}
		})
	}
}

// knownPackage reports whether pkg of mod may hang, or holds a test heddle
// is known to get wrong: a failure of the whole package is then expected.
func knownPackage(mod, pkg string) (string, bool) {
	for k, why := range mayHang {
		if strings.HasPrefix(pkg, "example.com/") && strings.HasSuffix(pkg, "/"+strings.TrimPrefix(k, mod+"/")) && strings.HasPrefix(k, mod+"/") {
			return why, true
		}
	}
	for k, why := range knownWrong {
		if strings.HasPrefix(k, mod+" "+pkg+" ") {
			return why, true
		}
	}
	return "", false
}

// TestSeeded: every seeded bug is found, with the kind its test's name
// ends with.
func TestSeeded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores test binaries")
	}
	dir := filepath.Join("testdata", "seeded")
	res := heddleTest(t, dir, "-budget", "300", "-timeout", "5m", "./...")
	tests, err := seededTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) == 0 {
		t.Fatal("no seeded tests found")
	}
	for _, key := range tests {
		want := key[strings.LastIndex(key, "_")+1:]
		r := res[key]
		if r == nil || !r.failed {
			t.Errorf("%s: seeded bug not found (want %s)", key, want)
			continue
		}
		found := false
		for _, k := range r.kinds {
			found = found || k == want
		}
		if !found {
			t.Errorf("%s: found as %v, want %s:\n%s", key, r.kinds, want, excerpt(r.output))
		}
	}
}

// seededTests lists "package Test" for every test function of the seeded
// module, from the sources.
func seededTests(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		pkg := "example.com/seeded/" + filepath.ToSlash(rel)
		for _, line := range strings.Split(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "func Test"); ok {
				name, _, _ = strings.Cut(name, "(")
				out = append(out, pkg+" Test"+name)
			}
		}
		return nil
	})
	return out, err
}

// constructs maps each construct of the rewriter's list (internal/rewrite's
// package documentation) and of issue 11's ways of writing them to a
// pattern that a test of the suite must contain: TestCoverage keeps the
// suite covering the list as it grows.
var constructs = map[string]string{
	"go statement":                `\bgo func\(`,
	"go in init":                  `(?s)func init\(\) \{\s*go func`,
	"make(chan)":                  `make\(chan `,
	"send":                        `\w+ <- \w+`,
	"receive":                     `<-\w+`,
	"v, ok receive":               `, ok :?= <-`,
	"close":                       `\bclose\(`,
	"len of a channel":            `len\(ch\)|len\(so\)`,
	"cap of a channel":            `cap\(ch\)`,
	"cap of a timer channel":      `cap\(tm\.C\)`,
	"select":                      `select \{`,
	"range over a channel":        `range (ch|c|jobs|results)\b`,
	"chan of chan":                `chan chan `,
	"chan of a type parameter":    `\[C ~`,
	"Mutex":                       `sync\.Mutex`,
	"RWMutex":                     `sync\.RWMutex`,
	"TryLock":                     `\.TryLock\(\)`,
	"TryRLock":                    `\.TryRLock\(\)`,
	"RLocker":                     `\.RLocker\(\)`,
	"WaitGroup":                   `sync\.WaitGroup`,
	"WaitGroup.Go":                `wg\.Go\(`,
	"Once":                        `sync\.Once`,
	"OnceFunc":                    `sync\.OnceFunc\(`,
	"OnceValue":                   `sync\.OnceValue\(`,
	"OnceValues":                  `sync\.OnceValues\(`,
	"Cond":                        `sync\.NewCond\(`,
	"Cond.Broadcast":              `\.Broadcast\(\)`,
	"sync.Map":                    `sync\.Map`,
	"sync.Locker":                 `sync\.Locker`,
	"method expression":           `\(\*sync\.\w+\)\.\w+\(`,
	"mutex value copy":            `cp := mu`,
	"zero value assignment":       `mu = sync\.Mutex\{\}`,
	"WaitGroup reset":             `wg = sync\.WaitGroup\{\}`,
	"atomic functions":            `atomic\.AddInt64\(`,
	"atomic And/Or":               `atomic\.OrUint32\(`,
	"typed atomics":               `atomic\.Int32`,
	"atomic.Value":                `atomic\.Value`,
	"atomic.Pointer":              `atomic\.Pointer\[`,
	"time.Sleep":                  `time\.Sleep\(`,
	"time.Now":                    `time\.Now\(\)`,
	"time.Since":                  `time\.Since\(`,
	"time.Until":                  `time\.Until\(`,
	"time.After":                  `time\.After\(`,
	"time.Tick":                   `time\.Tick\(`,
	"time.NewTimer":               `time\.NewTimer\(`,
	"time.NewTicker":              `time\.NewTicker\(`,
	"time.AfterFunc":              `time\.AfterFunc\(`,
	"Timer/Ticker Stop":           `\.Stop\(\)`,
	"Timer/Ticker Reset":          `\.Reset\(`,
	"old timer semantics":         `(?m)^go 1\.2[0-2]$`,
	"WithCancel":                  `context\.WithCancel\(`,
	"WithCancelCause":             `context\.WithCancelCause\(`,
	"WithTimeout":                 `context\.WithTimeout\(`,
	"WithTimeoutCause":            `context\.WithTimeoutCause\(`,
	"WithDeadline":                `context\.WithDeadline\(`,
	"WithDeadlineCause":           `context\.WithDeadlineCause\(`,
	"context.AfterFunc":           `context\.AfterFunc\(`,
	"context.Cause":               `context\.Cause\(`,
	"WithoutCancel":               `context\.WithoutCancel\(`,
	"runtime.Gosched":             `runtime\.Gosched\(`,
	"runtime.Goexit":              `runtime\.Goexit\(`,
	"runtime.NumGoroutine":        `runtime\.NumGoroutine\(`,
	"map iteration":               `for \w+(, \w+)? := range m\b`,
	"math/rand":                   `"math/rand"`,
	"math/rand/v2":                `"math/rand/v2"`,
	"testing.TB":                  `testing\.TB`,
	"t.Parallel":                  `\.Parallel\(\)`,
	"t.Cleanup":                   `\.Cleanup\(`,
	"TestMain":                    `func TestMain\(`,
	"os.Exit":                     `os\.Exit\(`,
	"log.Fatal":                   `log\.Fatal\(`,
	"log.Fatalln":                 `log\.Fatalln\(`,
	"log.Logger Fatalf":           `logger\.Fatalf\(`,
	"flag.Parse":                  `flag\.Parse\(\)`,
	"FlagSet.Parse":               `fs\.Parse\(`,
	"signal.Notify":               `signal\.Notify\(`,
	"signal.NotifyContext":        `signal\.NotifyContext\(`,
	"range-over-func":             `range (Gen|Pairs)\(`,
	"iter.Pull":                   `iter\.Pull\(`,
	"aliased import":              `(?m)^\s+\w+ "sync"$`,
	"dot import":                  `(?m)^\s+\. "`,
	"dependency without go line":  `example\.com/dep`,
	"context cancelled natively":  `cancels <- cancel`,
	"time read in a busy-wait":    `for time\.Since\(`,
	"method value of a sync type": `:= (mu|wg|m)\.(Lock|Unlock|Done|Add|Wait)\n`,
	"io.Pipe":                     `io\.Pipe\(\)`,
	"net.Pipe":                    `net\.Pipe\(\)`,
	"os.Pipe":                     `os\.Pipe\(\)`,

	// fidaudit12: sync, time and atomic methods through interfaces, and
	// sync/atomic functions used as values.
	"WaitGroup through an interface": `dw\.Done\(\)`,
	"Cond through an interface":      `s\.Signal\(\)`,
	"Timer through an interface":     `s\.Reset\(time\.Millisecond\)`,
	"atomic function value":          `add, load := atomic\.AddInt64`,
}

// TestCoverage: every construct of the rewriter's list is used by a test
// of the suite (see constructs).
func TestCoverage(t *testing.T) {
	var src strings.Builder
	err := filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "go.mod")) {
			return err
		}
		b, err := os.ReadFile(p)
		src.Write(b)
		src.WriteString("\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, pat := range constructs {
		if !regexp.MustCompile(pat).MatchString(src.String()) {
			t.Errorf("no test of the semantics suite uses %s (pattern %s)", name, pat)
		}
	}
}
