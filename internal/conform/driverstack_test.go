package conform

import (
	"reflect"
	"testing"
)

// A runtime.Stack(buf, true) dump as the native driver sees it after a
// run of TestErrorAfterReturn: the late t.Error waits for a lock of the
// testing package (goroutine 7), beside a goroutine of another program
// blocked for good (goroutine 9) and one that is not the programs' (11).
const lateErrorDump = `goroutine 5 [running]:
conformprog.conformLeft(0xc000012345)
	/tmp/m/conform_native_test.go:30 +0x45
conformprog.TestConformNative(0xc0000a8000)
	/tmp/m/conform_native_test.go:80 +0x1a5

goroutine 7 [sync.RWMutex.Lock]:
sync.runtime_SemacquireRWMutex(0xc000010238?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:105 +0x25
sync.(*RWMutex).Lock(0xc0000a8000?)
	/usr/local/go/src/sync/rwmutex.go:155 +0x6a
testing.(*common).Fail(0xc0000a8000)
	/usr/local/go/src/testing/testing.go:955 +0x3c
testing.(*common).Error(0xc0000a81c0, {0xc00004ff60?, 0x0?, 0x0?})
	/usr/local/go/src/testing/testing.go:1140 +0x5f
conformprog.TestErrorAfterReturn.func1()
	/tmp/m/ends_test.go:72 +0x8a
created by conformprog.TestErrorAfterReturn in goroutine 6
	/tmp/m/ends_test.go:70 +0x9a

goroutine 9 [chan receive]:
conformprog.TestLeakAfterDefault.func1()
	/tmp/m/ends_test.go:13 +0x2a
created by conformprog.TestLeakAfterDefault in goroutine 8
	/tmp/m/ends_test.go:12 +0x9a

goroutine 11 [select]:
net/http.(*persistConn).readLoop(0xc0001)
	/usr/local/go/src/net/http/transport.go:2200 +0x2a
`

func TestConformParse(t *testing.T) {
	files := map[string]bool{"ends_test.go": true}
	gs := conformParse(lateErrorDump, map[string]bool{}, files)
	want := []conformG{
		{id: "7", state: "sync.RWMutex.Lock", pos: "ends_test.go:72", inTesting: true},
		{id: "9", state: "chan receive", pos: "ends_test.go:13"},
	}
	if !reflect.DeepEqual(gs, want) {
		t.Fatalf("conformParse = %+v, want %+v", gs, want)
	}
	// The late t.Error is not a leak: the driver holds the lock it waits
	// for (it was once, in 1 of 14,208 native runs).
	if conformBlocked(gs[0]) {
		t.Errorf("a goroutine waiting in package testing counts as blocked: %+v", gs[0])
	}
	if !conformBlocked(gs[1]) {
		t.Errorf("a goroutine blocked in a receive does not count as blocked: %+v", gs[1])
	}
	if gs := conformParse(lateErrorDump, map[string]bool{"7": true, "9": true}, files); len(gs) != 0 {
		t.Errorf("goroutines already reported come back: %+v", gs)
	}
}
