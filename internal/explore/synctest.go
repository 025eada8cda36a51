package explore

import (
	"testing"

	"heddle.dev/internal/engine"
)

// Synctest is synctest.Test(t, f) (native, which package explore cannot
// name: testing/synctest is Go 1.25's, and the runtime builds with Go
// 1.21). During an exploration, f runs in a controlled goroutine, the
// root of a new bubble (engine.Exec.GoBubble: the goroutines it starts
// belong to the bubble, whose timers fire only when its goroutines are
// blocked), as the test of a scope of its own, as package testing runs it
// with a T of its own (a copy of t, newT): its cleanups run in the bubble when f returns, and
// its failure fails t. Synctest then waits until every goroutine of the
// bubble has exited, and fails t with FailNow if f's test failed, or
// panics with the runtime's message if the bubble's goroutines are
// deadlocked, as synctest.Test does.
//
//go:norace
func Synctest(t *testing.T, f func(*testing.T), native func(*testing.T, func(*testing.T))) {
	x := engine.Current()
	if x == nil {
		native(t, f)
		return
	}
	rs, ok := x.T.(*runT)
	if !ok {
		native(t, f)
		return
	}
	if x.InBubble() {
		panic("synctest.Run called from within a synctest bubble")
	}
	parent := rs.scopeOfT(t)
	sc := rs.newScope(parent, parent.name, parent.full)
	sc.bubble = true
	if rs.scopes == nil {
		rs.scopes = map[*engine.G]*scope{}
	}
	b := x.GoBubble(func() {
		rs.scopes[x.Cur()] = sc
		defer rs.endScope(x, sc)
		rs.runBody(sc, func() { f(sc.t) })
	})
	if msg := x.BubbleEnd(b); msg != "" {
		panic(synctestDeadlock(msg))
	}
	if sc.failed {
		parent.FailNow()
	}
}

// synctestDeadlock is the value synctest.Test panics with when the
// goroutines of its bubble are deadlocked.
type synctestDeadlock string

func (e synctestDeadlock) Error() string { return string(e) }
