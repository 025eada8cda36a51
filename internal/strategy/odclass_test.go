package strategy_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// closeWakesSelects is conformance's TestCloseWakesSelects (fidchan.go):
// two workers select on a work channel and a done channel; the test
// goroutine offers one item until a timer fires, then closes done.
func closeWakesSelects(o *outcome) {
	work, done := rt.MakeChan[chan int](0), rt.MakeChan[chan struct{}](0)
	res := rt.MakeChan[chan int32](2)
	for i := 0; i < 2; i++ {
		rt.Go(func() {
			if rt.Select(false, rt.RecvCase(work), rt.RecvCase(done)) == 0 {
				rt.Send(res, 1)
			} else {
				rt.Send(res, 2)
			}
		})
	}
	rt.Select(false, rt.SendCase(work, 1), rt.RecvCase(rt.After(time.Millisecond)))
	rt.Close(done)
	o.log(0, rt.Recv(res)+rt.Recv(res))
}

// closeWakesSelectsNoTimer is closeWakesSelects offering the item with a
// select default instead of a timer.
func closeWakesSelectsNoTimer(o *outcome) {
	work, done := rt.MakeChan[chan int](0), rt.MakeChan[chan struct{}](0)
	res := rt.MakeChan[chan int32](2)
	for i := 0; i < 2; i++ {
		rt.Go(func() {
			if rt.Select(false, rt.RecvCase(work), rt.RecvCase(done)) == 0 {
				rt.Send(res, 1)
			} else {
				rt.Send(res, 2)
			}
		})
	}
	rt.Select(true, rt.SendCase(work, 1))
	rt.Close(done)
	o.log(0, rt.Recv(res)+rt.Recv(res))
}

// selectSelfPair is conformance's TestSelectSelfPair (fidmisc.go): two
// selects, each with a send and a receive on one channel and a timer.
func selectSelfPair(o *outcome) {
	c := rt.MakeChan[chan int](0)
	res := rt.MakeChan[chan int32](2)
	sel := func(name int32) {
		i := rt.Select(false, rt.SendCase(c, 1), rt.RecvCase(c), rt.RecvCase(rt.After(20*time.Millisecond)))
		rt.Send(res, name*10+int32(i))
	}
	rt.Go(func() { sel(1) })
	sel(2)
	o.log(0, rt.Recv(res))
	o.log(0, rt.Recv(res))
}

// sendOrTimer: a select offers an item to a receiver until a timer
// fires. The receiver's arrival and its rendezvous with the parked
// select are two steps of one goroutine at one point (which one runs
// depends on whether the select arrived first).
func sendOrTimer(o *outcome) {
	work := rt.MakeChan[chan int](0)
	rt.Go(func() { rt.Recv(work) })
	o.log(0, int32(rt.Select(false, rt.SendCase(work, 1), rt.RecvCase(rt.After(time.Millisecond)))))
}

// TestOptimalDPOROneRunPerClass: optimal DPOR explores each
// happens-before class at most once in its complete runs, makes no more
// runs than source DPOR, and reaches its outcomes, on programs whose
// selects are woken by a close or a timer. Before, a wakeup sequence
// whose first step runs as another step at its node (a goroutine's
// arrival inserted where its rendezvous with a parked select runs) was
// explored again below a choice explored there already, and a select
// woken by the close e was reversed with e as if the steps not after e
// could wake it: optimal DPOR took 14 runs for sendOrTimer's 12
// classes, 164 for closeWakesSelectsNoTimer's 160 (4 sleep-set
// blocked), and over 13,000 and 30,000 runs for selectSelfPair (748
// classes) and closeWakesSelects (2,892), where source DPOR takes 751
// and 2,943. Now it makes exactly one run per class, none sleep-set
// blocked; it made 2 and 38 blocked runs on closeWakesSelectsNoTimer and
// closeWakesSelects before: a wakeup child whose step runs at its node as
// a step asleep there (an arrival for a completion inserted by
// alternatives), a sequence appended beside a child whose step it does
// not depend on (compared by the objects' names, which merged a close's
// channel with a receive's by the step that touched them in other runs),
// and a receive from a channel closed by e reversed with e as itself.
func TestOptimalDPOROneRunPerClass(t *testing.T) {
	for _, c := range []struct {
		name    string
		prog    func(*outcome)
		classes int
	}{
		{"sendOrTimer", sendOrTimer, 12},
		{"closeWakesSelectsNoTimer", closeWakesSelectsNoTimer, 160},
		{"selectSelfPair", selectSelfPair, 748},
		{"closeWakesSelects", closeWakesSelects, 2892},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := exploreCounted(t, strategy.NewSourceDPOR(), 10000, c.prog)
			opt := exploreCounted(t, strategy.NewOptimalDPOR(), 10000, c.prog)
			if opt.classes != c.classes || src.classes != c.classes {
				t.Errorf("classes: optimal DPOR %d, source DPOR %d, want %d", opt.classes, src.classes, c.classes)
			}
			if opt.repeated > 0 {
				t.Errorf("optimal DPOR: %d complete runs repeat a class (%s)", opt.repeated, opt.stats)
			}
			if opt.blocked > 0 || opt.runs != c.classes {
				t.Errorf("optimal DPOR: %d runs (%d sleep-set blocked), want one per class: %d (%s)", opt.runs, opt.blocked, c.classes, opt.stats)
			}
			if opt.runs > src.runs {
				t.Errorf("optimal DPOR %d runs, source DPOR %d", opt.runs, src.runs)
			}
			if m := missing(src.outcomes, opt.outcomes); len(m) > 0 {
				t.Errorf("optimal DPOR misses %d of source DPOR's outcomes, e.g. %s", len(m), m[0])
			}
			if m := missing(opt.outcomes, src.outcomes); len(m) > 0 {
				t.Errorf("optimal DPOR reaches %d outcomes source DPOR does not, e.g. %s", len(m), m[0])
			}
			t.Logf("optimal DPOR %s; source DPOR %s", opt.stats, src.stats)
		})
	}
}

// rangeVsWrite is a racy range over an n-entry map that deletes the even
// keys, against one write of the map, as heddle test -racy rewrites it:
// each racy map statement's map steps stand for its group (rt.MapIter(m,
// "g"), engine.Exec.MapIn); the read of len(m) after the receive, on a
// line of the group with no map step, keeps the group's step. With
// groupSteps, as the rewriter did before heddle-rewrite-32: each racy
// map statement a step on the group and the map's own steps, without the
// group.
func rangeVsWrite(n int, groupSteps bool) func(o *outcome) {
	g := []string{"g"}
	racy := func(write bool) {}
	if groupSteps {
		g = nil
		racy = func(write bool) {
			if write {
				rt.RacyWrite("g")
			} else {
				rt.RacyRead("g")
			}
		}
	}
	return func(o *outcome) {
		m := map[int]int{}
		for i := 0; i < n; i++ {
			m[i] = i
		}
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			racy(false)
			rt.MapIter(m, g...)
			for _, k := range rt.MapKeys(m) {
				if _, ok := m[k]; !ok {
					continue
				}
				rt.MapIter(m, g...)
				racy(false)
				if k%2 == 0 {
					racy(true)
					rt.MapWriteBegin(m, g...)
					delete(m, k)
					rt.MapWriteEnd(m, g...)
				}
			}
			rt.Send(done, true)
		})
		racy(true)
		rt.MapWriteBegin(m, g...)
		m[1001] = 1
		rt.MapWriteEnd(m, g...)
		rt.Recv(done)
		rt.RacyRead("g")
		o.log(0, int32(len(m)))
	}
}

// TestOptimalDPORRangeVsWrite: on a racy map range against one write,
// optimal and source DPOR make one run per class: 25 at 4 entries (45 at
// 8, 105 at 20: heddle's counts on the program this models), linear in
// the map's size, with the outcomes of the rewrite before
// heddle-rewrite-32, which gave each racy map statement a step on the
// group besides its map steps, two steps ordered independently with the
// other goroutine's: 120 classes at 4 entries, 349 at 8, 1,746 at 20.
func TestOptimalDPORRangeVsWrite(t *testing.T) {
	src := exploreCounted(t, strategy.NewSourceDPOR(), 1000, rangeVsWrite(4, false))
	opt := exploreCounted(t, strategy.NewOptimalDPOR(), 1000, rangeVsWrite(4, false))
	if opt.classes != 25 || opt.repeated > 0 || opt.blocked > 0 || opt.runs > src.runs {
		t.Errorf("optimal DPOR %s: %d classes, %d repeated; source DPOR %s; want 25 runs, one per class", opt.stats, opt.classes, opt.repeated, src.stats)
	}
	if m := missing(src.outcomes, opt.outcomes); len(m) > 0 || len(opt.outcomes) != len(src.outcomes) {
		t.Errorf("outcomes: optimal DPOR %d, source DPOR %d", len(opt.outcomes), len(src.outcomes))
	}
	two := exploreCounted(t, strategy.NewOptimalDPOR(), 1000, rangeVsWrite(4, true))
	if two.classes != 120 {
		t.Errorf("group steps besides the map steps: %d classes, want 120 (%s)", two.classes, two.stats)
	}
	if m := missing(two.outcomes, opt.outcomes); len(m) > 0 || len(opt.outcomes) != len(two.outcomes) {
		t.Errorf("outcomes: map steps standing for the group %d, group steps besides %d, missing e.g. %v", len(opt.outcomes), len(two.outcomes), m)
	}
}

// counted is an exploration with its happens-before classes counted.
type counted struct {
	runs, classes, repeated, blocked int
	outcomes                         map[string]bool
	stats                            string
}

// exploreCounted explores prog with d (late wakes on, as explore sets
// them), counting the classes of its runs and the complete runs whose
// class an earlier complete run had.
func exploreCounted(t *testing.T, d *strategy.DPOR, limit int, prog func(*outcome)) counted {
	t.Helper()
	cc := strategy.NewClassCounter(d)
	c := counted{outcomes: map[string]bool{}}
	complete := map[string]bool{}
	var o *outcome
	body := func() {
		o = &outcome{}
		prog(o)
	}
	for run := 1; cc.Begin(run); run++ {
		if run > limit {
			t.Fatalf("%s: exploration did not end within %d runs (%d classes)", d.Stats(), limit, len(cc.HB))
		}
		blocked := d.Blocked
		r := engine.Run(lateCfg, cc, body)
		cc.End(r)
		c.runs++
		c.outcomes[o.String()+bugKey(r.Bug)] = true
		if d.Blocked > blocked {
			continue
		}
		if complete[cc.Last] {
			c.repeated++
		}
		complete[cc.Last] = true
	}
	if d.Proven() == "" {
		t.Errorf("%s: no claim that all schedules were explored", d.Stats())
	}
	c.classes, c.blocked, c.stats = len(complete), d.Blocked, d.Stats()
	return c
}
