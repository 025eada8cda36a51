package goker

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func loadKernels(t *testing.T) map[string]*Kernel {
	t.Helper()
	goroot, err := GOROOT()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := Load(goroot)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*Kernel{}
	for _, k := range ks {
		m[k.Name] = k
	}
	return m
}

func TestLoad(t *testing.T) {
	ks := loadKernels(t)
	if len(ks) != 63 {
		t.Errorf("%d kernels, want the 63 of Go 1.26", len(ks))
	}
	for name, k := range ks {
		if k.Class == "" {
			t.Errorf("%s: no GoBench class", name)
		}
		if len(k.Expected) == 0 {
			t.Errorf("%s: no expected leaks", name)
		}
		for _, l := range k.Expected {
			if !k.Funcs[l.Base] {
				t.Errorf("%s: expected leak %q: %q is not a function of the kernel", name, l.Pattern, l.Base)
			}
		}
	}
	k := ks["Kubernetes1321"]
	if k == nil || len(k.Expected) != 2 || !k.Expected[0].Comment {
		t.Errorf("Kubernetes1321: want the 2 leaks of the commented-out case, got %+v", k)
	}
}

func TestPrepare(t *testing.T) {
	ks := loadKernels(t)
	for name, k := range ks {
		for _, f := range []Form{Single, Shipped} {
			c, err := k.Prepare(f)
			if err != nil {
				t.Errorf("%s %s: %v", name, f, err)
				continue
			}
			src := string(c.Src)
			if strings.Contains(src, "pprof") || strings.Contains(src, "WriteTo") {
				t.Errorf("%s %s: profiling scaffolding left", name, f)
			}
			if strings.Count(src, "\n") != strings.Count(string(k.Src), "\n") {
				t.Errorf("%s %s: lines moved", name, f)
			}
			if _, err := parser.ParseFile(token.NewFileSet(), k.File, c.Src, 0); err != nil {
				t.Errorf("%s %s: %v", name, f, err)
			}
		}
	}
	c, err := ks["Cockroach1055"].Prepare(Single)
	if err != nil {
		t.Fatal(err)
	}
	if c.Copies != "1001" || !strings.Contains(string(c.Src), "for i := 0; i <= 0; i++ {") {
		t.Errorf("Cockroach1055 single: copies %s, loop not rewritten to one copy", c.Copies)
	}
	c, err = ks["Moby7559"].Prepare(Shipped)
	if err != nil {
		t.Fatal(err)
	}
	if c.Copies != "20" || !strings.Contains(string(c.Src), "i < 20") {
		t.Errorf("Moby7559 shipped: copies %s, loop changed", c.Copies)
	}
	c, err = ks["Grpc3017"].Prepare(Single)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Src), "i < 10000") {
		t.Errorf("Grpc3017 single: the loop inside the scenario was changed")
	}
}

func TestBase(t *testing.T) {
	ks := loadKernels(t)
	for _, c := range []struct{ kernel, fn, want string }{
		{"Syncthing5795", "goker.TestKernel.func1.Syncthing5795.1", "Syncthing5795"},
		{"Cockroach3710", "goker.(*Store_cockroach3710).processRaft-fm.(*Store_cockroach3710).processRaft.func1", "(*Store_cockroach3710).processRaft"},
		{"Cockroach1462", "goker.NewLocalInterceptableTransport_cockroach1462.(*localInterceptableTransport_cockroach1462).start.func1", "(*localInterceptableTransport_cockroach1462).start"},
		{"Moby7559", "main.(*UDPProxy_moby7559).Run", "(*UDPProxy_moby7559).Run"},
		{"Moby7559", "goker.TestKernel", ""},
		{"Moby7559", "sync.(*Mutex).Lock", ""},
	} {
		if got := ks[c.kernel].base(c.fn); got != c.want {
			t.Errorf("%s: base(%q) = %q, want %q", c.kernel, c.fn, got, c.want)
		}
	}
}

const moby7559Report = `heddle: GOROUTINE LEAK in TestKernel (run 1, 3 steps, strategy pct, seed 1)
  1 goroutine(s) blocked forever after the test returned

goroutines:
  g0       the test goroutine; finished
  g0.1     created at moby7559.go:53 in goker.Moby7559; blocked forever: Lock at moby7559.go:32 in goker.(*UDPProxy_moby7559).Run

steps:
      0  g0       start
`

func TestCheck(t *testing.T) {
	ks := loadKernels(t)
	k := ks["Moby7559"]
	bs := k.ParseReport(moby7559Report)
	if len(bs) != 1 || bs[0].Entry != "Run" {
		t.Fatalf("parsed %+v", bs)
	}
	if v := k.Check(bs); !v.OK {
		t.Errorf("the expected leak is rejected: %s", v.Why)
	}
	// The same goroutine with the wrong wait, or outside the kernel.
	wrong := strings.Replace(moby7559Report, "Lock at", "receive from channel at", 1)
	if v := k.Check(k.ParseReport(wrong)); v.OK {
		t.Errorf("a leak with the wrong wait is accepted")
	}
	outside := strings.Replace(moby7559Report, "in goker.(*UDPProxy_moby7559).Run", "in goker.TestKernel", 1)
	if v := k.Check(k.ParseReport(outside)); v.OK || !strings.Contains(v.Why, "outside") {
		t.Errorf("a leak outside the kernel is accepted: %+v", v)
	}
	if v := k.Check(nil); v.OK {
		t.Errorf("no blocked goroutine is accepted")
	}
	// A lock's holder, which reports name after the wait.
	held := strings.Replace(moby7559Report, "in goker.(*UDPProxy_moby7559).Run\n", "in goker.(*UDPProxy_moby7559).Run, held by itself, locked at moby7559.go:32\n", 1)
	if bs := k.ParseReport(held); len(bs) != 1 || bs[0].Func != "goker.(*UDPProxy_moby7559).Run" {
		t.Errorf("a line naming the lock's holder parsed as %+v", bs)
	} else if v := k.Check(bs); !v.OK {
		t.Errorf("the expected leak, with its lock's holder, is rejected: %s", v.Why)
	}
	// A report of many goroutines groups alike ones on one line.
	grouped := strings.Replace(moby7559Report, "  g0.1     created", "  g0.1     (and 99 more) created", 1)
	if bs := k.ParseReport(grouped); len(bs) != 1 || bs[0].Count != 100 || bs[0].Entry != "Run" {
		t.Errorf("grouped line parsed as %+v", bs)
	} else if v := k.Check(bs); !v.OK || v.Matched != 100 || v.NBlocked() != 100 {
		t.Errorf("grouped line: %+v", v)
	}
	stack := `goroutine 6 [sync.Mutex.Lock]:
internal/sync.runtime_SemacquireMutex(0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:95 +0x25
sync.(*Mutex).Lock(...)
	/usr/local/go/src/sync/mutex.go:46
goker.(*UDPProxy_moby7559).Run(0x48ed843c200)
	/tmp/x/moby7559.go:32 +0x52
created by goker.Moby7559 in goroutine 5
	/tmp/x/moby7559.go:53 +0x1b

goroutine 1 [chan receive]:
testing.(*T).Run(0x48ed84e2008, {0x5a4d5c?, 0x0?}, 0x5b2e00)
	/usr/local/go/src/testing/testing.go:2109 +0x4e5
main.main()
	_testmain.go:48 +0x9b
`
	bs = k.ParseStacks(stack)
	if len(bs) != 1 || bs[0].Wait != "Lock" {
		t.Fatalf("parsed %+v", bs)
	}
	if v := k.Check(bs); !v.OK {
		t.Errorf("the native leak is rejected: %s", v.Why)
	}
}
