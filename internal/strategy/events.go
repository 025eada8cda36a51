package strategy

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"heddle.dev/internal/engine"
)

// This file turns a run's trace into the events of heddle.md §4 and
// computes their happens-before relation with vector clocks, for DPOR, the
// HBR caches and the Mazurkiewicz-class counting of the tests.

// access is one object an event touches. Every event also reads the
// pseudo-object world, and every channel operation reads the pseudo-object
// anyChan, so that events that touch all of them (a timer firing, which
// moves virtual time that any step may read; a select, whose channels the
// trace does not keep) conflict with everything simply by writing it.
type access struct {
	obj   unsafe.Pointer
	write bool
	mutex bool // a Lock/Unlock-family transition (independent under the lazy HBR)
}

var (
	worldObj   = new(byte)
	anyChanObj = new(byte)
	world      = unsafe.Pointer(worldObj)
	anyChan    = unsafe.Pointer(anyChanObj)
)

// event is one step: a choice and the local code after it, or the joint
// step of an unbuffered rendezvous (two goroutines).
type event struct {
	key   string  // the choice key of the step taken (initiator)
	pc    uintptr // call site of the initiator's operation, when recorded
	gs    []*engine.G
	cases []int
	kinds []engine.OpKind
	acc   []access
	timer string // the timer, for a firing
	// computed by hb:
	proc int   // primary process: goroutine index, or len(Gs) for timers
	idx  int   // 1-based index of the event in its primary process
	vc   []int // vector clock (entries are per-process event counts)
	lvc  []int // the same under the lazy dependence
}

// accesses classifies one operation (heddle.md §4).
func accesses(k engine.OpKind, obj unsafe.Pointer) []access {
	r := []access{{obj: world}}
	w := func(m bool) []access { return append(r, access{obj: obj, write: true, mutex: m}) }
	rd := func(m bool) []access { return append(r, access{obj: obj, mutex: m}) }
	switch k {
	case engine.OpSend, engine.OpRecv, engine.OpClose:
		r = append(r, access{obj: anyChan})
		return w(false)
	case engine.OpChanLen:
		r = append(r, access{obj: anyChan})
		return rd(false)
	case engine.OpSelect:
		return append(r, access{obj: anyChan, write: true})
	case engine.OpLock, engine.OpUnlock:
		return w(true)
	case engine.OpWLock, engine.OpWLockWait, engine.OpWUnlock:
		// RWMutex transitions are not relaxed by the lazy HBR: seed-004's
		// model (and Theorem 4.3.1) has plain mutexes only.
		return w(false)
	case engine.OpOnce, engine.OpOnceDone:
		// Once.Do blocks while f runs, like a Lock; the completion of f
		// releases it, like an Unlock. It is not a pure mutex transition
		// (which Do runs f matters), so it stays dependent under the
		// lazy HBR.
		return w(false)
	case engine.OpRLock, engine.OpRUnlock:
		return rd(false)
	case engine.OpTryLock, engine.OpRWTryLock:
		return w(false)
	case engine.OpRWTryRLock:
		return rd(false)
	case engine.OpWGAdd:
		return rd(false) // Adds commute with each other; Wait conflicts with them
	case engine.OpWGWait, engine.OpCondWait, engine.OpCondBlocked, engine.OpCondSignal, engine.OpCondBroadcast:
		return w(false)
	case engine.OpAtomicLoad, engine.OpMapRead:
		return rd(false)
	case engine.OpAtomicWrite, engine.OpMapWrite:
		return w(false)
	case engine.OpSleep, engine.OpTimerFire, engine.OpTimerStop, engine.OpCancel:
		// Virtual time (and a timer's channel) is read by any step.
		return []access{{obj: world, write: true}}
	}
	return r // start, gosched, exit, block: only program order
}

func choiceKey(g *engine.G, k engine.OpKind, c int) string {
	if k == engine.OpSelect && c >= 0 {
		return g.ID + "#" + strconv.Itoa(c)
	}
	return g.ID
}

// pendingEvent is the event choice c would make at p (for an unbuffered
// rendezvous, with the partner that would complete it).
func pendingEvent(p *engine.Point, c engine.Choice) *event {
	if c.G == nil {
		return &event{key: c.Key(), timer: c.Timer.ID, kinds: []engine.OpKind{engine.OpTimerFire}, acc: accesses(engine.OpTimerFire, nil)}
	}
	op := c.G.Pending()
	cs := c.Case
	if op.Kind != engine.OpSelect {
		cs = -1
	}
	e := &event{key: c.Key(), pc: op.PC, gs: []*engine.G{c.G}, cases: []int{cs}, kinds: []engine.OpKind{op.Kind}}
	e.acc = accesses(op.Kind, opObj(op, c.Case))
	e.announce() // what the step announces is not known yet
	if h, hc := p.Exec.ChoicePartner(c); h != nil {
		hop := h.Pending()
		e.gs = append(e.gs, h)
		if hop.Kind != engine.OpSelect {
			hc = -1
		}
		e.cases = append(e.cases, hc)
		e.kinds = append(e.kinds, hop.Kind)
		e.acc = append(e.acc, accesses(hop.Kind, opObj(hop, hc))...)
	}
	return e
}

// opObj is the object of op as the trace records it (a select's cases are
// not kept: it is treated as touching every channel).
func opObj(op engine.Op, c int) unsafe.Pointer {
	if op.Kind == engine.OpSleep && op.Timer != nil {
		return unsafe.Pointer(op.Timer)
	}
	return op.Obj
}

// dependent reports whether a and b are dependent: they share a goroutine,
// or touch a common object and one of them writes it. lazy drops the
// conflicts between mutex transitions of different goroutines (seed-004
// §5.3, Def. 4).
func dependent(a, b *event, lazy bool) bool {
	for _, g := range a.gs {
		for _, h := range b.gs {
			if g == h {
				return true
			}
		}
	}
	if a.timer != "" && b.timer != "" {
		return true
	}
	for _, x := range a.acc {
		for _, y := range b.acc {
			if x.obj == y.obj && (x.write || y.write) && !(lazy && x.mutex && y.mutex) {
				return true
			}
		}
	}
	return false
}

// sameStep reports whether a and b are the same step of the same
// goroutines (for a rendezvous, whichever side initiated it).
func sameStep(a, b *event) bool { return a.matchesEvent(b) }

// runEvents builds the events of a trace incrementally and records the
// goroutine-creation edges (a go statement is not a step: the goroutine is
// created during the step of its parent that precedes the first
// scheduling point after it; observe is called at every Choose to catch
// that point, and End catches the rest).
type runEvents struct {
	ev      []*event
	pos     int               // trace entries consumed
	created map[*engine.G]int // creating event index, -1: before every event
	seenGs  int
	lastOf  map[*engine.G]int // index of each goroutine's last event
	exited  map[*engine.G]bool
	ann     map[*engine.G]announcement
}

func newRunEvents() *runEvents {
	return &runEvents{created: map[*engine.G]int{}, lastOf: map[*engine.G]int{}, exited: map[*engine.G]bool{}, ann: map[*engine.G]announcement{}}
}

// consume adds the trace entries not seen yet.
func (r *runEvents) consume(tr []engine.Step) {
	for ; r.pos < len(tr); r.pos++ {
		st := tr[r.pos]
		if st.Kind == engine.OpExit {
			r.exited[st.G] = true
		}
		if st.Kind == engine.OpExit || st.N == 0 {
			continue
		}
		if st.G == nil {
			r.ev = append(r.ev, &event{key: "@" + st.Timer, timer: st.Timer, kinds: []engine.OpKind{engine.OpTimerFire}, acc: accesses(engine.OpTimerFire, nil)})
			continue
		}
		acc := accesses(st.Kind, st.Obj)
		if prev, ok := r.lastOf[st.G]; ok {
			if a, ok := r.ann[st.G]; ok && a.ev == prev {
				if a.unbuf {
					r.ev[prev].announce()
				}
			} else if r.mayRendezvous(st.Kind, st.Obj) {
				r.ev[prev].announce()
			}
		}
		if n := len(r.ev); n > 0 && r.pos > 0 && sameN(tr, r.pos) {
			// The partner of an unbuffered rendezvous: same step.
			e := r.ev[n-1]
			e.gs = append(e.gs, st.G)
			e.cases = append(e.cases, st.Case)
			e.kinds = append(e.kinds, st.Kind)
			e.acc = append(e.acc, acc...)
			r.lastOf[st.G] = n - 1
			continue
		}
		r.ev = append(r.ev, &event{key: choiceKey(st.G, st.Kind, st.Case), pc: st.PC, gs: []*engine.G{st.G}, cases: []int{st.Case}, kinds: []engine.OpKind{st.Kind}, acc: acc})
		r.lastOf[st.G] = len(r.ev) - 1
	}
}

// sameN reports whether trace entry i is a second entry of the step of the
// previous non-exit entry.
func sameN(tr []engine.Step, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if tr[j].Kind == engine.OpExit {
			continue
		}
		return tr[j].N == tr[i].N && tr[j].N != 0
	}
	return false
}

// observe is called at each Choose: goroutines that appeared since the last
// call were created by the last step (a timer firing's AfterFunc), or by
// their parent's last step.
func (r *runEvents) observe(x *engine.Exec) {
	r.consume(x.Trace())
	gs := x.Gs()
	r.announced(gs)
	for ; r.seenGs < len(gs); r.seenGs++ {
		g := gs[r.seenGs]
		if _, ok := r.created[g]; ok || g.Parent == nil {
			continue
		}
		r.created[g] = r.creator(g, len(r.ev))
	}
}

func (r *runEvents) creator(g *engine.G, before int) int {
	if before > 0 && r.ev[before-1].timer != "" {
		return before - 1
	}
	for i := before - 1; i >= 0; i-- {
		for _, h := range r.ev[i].gs {
			if h == g.Parent {
				return i
			}
		}
	}
	return -1
}

// announced marks the last step of every goroutine still alive with the
// operation it announced (its pending operation).
func (r *runEvents) announced(gs []*engine.G) {
	for _, g := range gs {
		if r.exited[g] {
			continue
		}
		last, ok := r.lastOf[g]
		if !ok {
			continue
		}
		op := g.Pending()
		unbuf := false
		switch op.Kind {
		case engine.OpSelect:
			// As mayRendezvous: a select's cases are not in the trace.
			unbuf = true
		case engine.OpSend, engine.OpRecv:
			for _, c := range op.Cases {
				if c.Chan() != nil && c.Cap() == 0 {
					unbuf = true
				}
			}
		}
		r.ann[g] = announcement{ev: last, unbuf: unbuf}
		if unbuf {
			r.ev[last].announce()
		}
	}
}

// announcement is what a goroutine's last step announced, when seen.
type announcement struct {
	ev    int
	unbuf bool
}

// mayRendezvous reports whether an operation of kind k on obj, announced
// where no scheduling point saw it, may be an unbuffered one (a select's
// cases are not in the trace: it may).
func (r *runEvents) mayRendezvous(k engine.OpKind, obj unsafe.Pointer) bool {
	switch k {
	case engine.OpSelect:
		return true
	case engine.OpSend, engine.OpRecv:
		return obj == nil || chanCap(obj) == 0
	}
	return false
}

// chanCap reads the capacity of the channel whose runtime header is at p:
// the second word of runtime.hchan (qcount, dataqsiz, ...), fixed when
// the channel is made. The trace names a channel by that address but does
// not keep its capacity.
func chanCap(p unsafe.Pointer) int { return int((*[2]uint)(p)[1]) }

// announce records that e ended with its goroutine announcing an
// unbuffered channel operation (or a select with such a case). The
// arrival of an unbuffered partner can make a select's case ready, so that
// step is dependent with selects, which write anyChan (heddle.md §4: a
// default taken is dependent with every operation that could have made a
// case ready). A pending step's announcement is not known yet:
// pendingEvent assumes one.
func (e *event) announce() {
	for _, a := range e.acc {
		if a.obj == anyChan {
			return
		}
	}
	e.acc = append(e.acc, access{obj: anyChan})
}

// finish consumes the rest of the trace and the creation edges of the
// goroutines no Choose saw before they started: their first step followed
// their creation directly.
func (r *runEvents) finish(res *engine.Result) {
	r.consume(res.Trace)
	r.announced(res.Gs)
	first := map[*engine.G]int{}
	for i, e := range r.ev {
		for _, g := range e.gs {
			if _, ok := first[g]; !ok {
				first[g] = i
			}
		}
	}
	for _, g := range res.Gs {
		if _, ok := r.created[g]; ok || g.Parent == nil {
			continue
		}
		if f, ok := first[g]; ok {
			r.created[g] = r.creator(g, f)
		} else {
			r.created[g] = r.creator(g, len(r.ev))
		}
	}
}

// hb computes the vector clocks of the events (and, if lazy, those of the
// lazy HBR). Clock entries count events per process: e → f iff
// f.vc[e.proc] >= e.idx.
func hb(ev []*event, created map[*engine.G]int, nprocs int, lazy bool) {
	type objClock struct{ w, r []int }
	objs := map[unsafe.Pointer]*objClock{}
	procVC := map[int][]int{}
	count := make([]int, nprocs+1)
	join := func(a, b []int) []int {
		for i, x := range b {
			if x > a[i] {
				a[i] = x
			}
		}
		return a
	}
	for i, e := range ev {
		v := make([]int, nprocs+1)
		var procs []int
		if e.timer != "" {
			procs = []int{nprocs}
		} else {
			for _, g := range e.gs {
				procs = append(procs, g.Index)
			}
		}
		for _, pr := range procs {
			if pv, ok := procVC[pr]; ok {
				join(v, pv)
			} else if pr < nprocs {
				// The goroutine's first step: after the step that made it.
				for _, g := range e.gs {
					if g.Index == pr {
						if c, ok := created[g]; ok && c >= 0 && c < i {
							join(v, ev[c].vcOf(lazy))
						}
					}
				}
			}
		}
		for _, a := range e.acc {
			if lazy && a.mutex {
				continue
			}
			oc := objs[a.obj]
			if oc == nil {
				oc = &objClock{w: make([]int, nprocs+1), r: make([]int, nprocs+1)}
				objs[a.obj] = oc
			}
			join(v, oc.w)
			if a.write {
				join(v, oc.r)
			}
		}
		for _, pr := range procs {
			count[pr]++
			v[pr] = count[pr]
		}
		e.proc = procs[0]
		e.idx = count[procs[0]]
		for _, pr := range procs {
			procVC[pr] = v
		}
		for _, a := range e.acc {
			if lazy && a.mutex {
				continue
			}
			oc := objs[a.obj]
			if a.write {
				copy(oc.w, v)
				for k := range oc.r {
					oc.r[k] = 0
				}
			} else {
				join(oc.r, v)
			}
		}
		if lazy {
			e.lvc = v
		} else {
			e.vc = v
		}
	}
}

func (e *event) vcOf(lazy bool) []int {
	if lazy {
		return e.lvc
	}
	return e.vc
}

// before reports whether a happens before b (a ≠ b) in the computed HBR.
func before(a, b *event, lazy bool) bool {
	v := b.vcOf(lazy)
	return a != b && v[a.proc] >= a.idx
}

// classKey is a canonical form of the happens-before relation of ev: the
// set of events, each named by its goroutines, cases and kinds, with its
// vector clock over stable goroutine ids. Two traces have the same key iff
// they are linearizations of the same Mazurkiewicz trace.
func classKey(ev []*event, procName []string, lazy bool) string {
	parts := make([]string, len(ev))
	for i, e := range ev {
		var b strings.Builder
		if e.timer != "" {
			b.WriteString("@" + e.timer)
		}
		ids := make([]string, len(e.gs))
		for j, g := range e.gs {
			ids[j] = g.ID + "#" + strconv.Itoa(e.cases[j]) + ":" + e.kinds[j].String()
		}
		sort.Strings(ids)
		b.WriteString(strings.Join(ids, "+"))
		b.WriteString("|")
		v := e.vcOf(lazy)
		for p, c := range v {
			if c > 0 {
				b.WriteString(procName[p] + "=" + strconv.Itoa(c) + ",")
			}
		}
		parts[i] = b.String()
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// Analysis of one finished run: its events with their happens-before.
type analysis struct {
	ev       []*event
	created  map[*engine.G]int
	procName []string
}

func analyze(r *runEvents, res *engine.Result, lazy bool) *analysis {
	r.finish(res)
	n := len(res.Gs)
	hb(r.ev, r.created, n, false)
	if lazy {
		hb(r.ev, r.created, n, true)
	}
	names := make([]string, n+1)
	for _, g := range res.Gs {
		names[g.Index] = g.ID
	}
	names[n] = "@timers"
	return &analysis{ev: r.ev, created: r.created, procName: names}
}

// ClassCounter wraps a strategy and computes the canonical happens-before
// class of every run (the runs need engine.Config.Trace): two runs have the
// same class iff they are equivalent up to reordering independent steps,
// under the dependence relation of heddle.md §4 — that is, the same
// Mazurkiewicz trace. The lazy class uses the lazy HBR of seed-004 §5
// (mutex transitions of different goroutines independent). It must see
// every Choose, to place goroutine creations.
type ClassCounter struct {
	engine.Strategy
	re *runEvents
	// Last and LastLazy are the classes of the last run.
	Last, LastLazy string
	// HB and Lazy count the runs of each class.
	HB, Lazy map[string]int
}

// NewClassCounter wraps s.
func NewClassCounter(s engine.Strategy) *ClassCounter {
	return &ClassCounter{Strategy: s, HB: map[string]int{}, Lazy: map[string]int{}}
}

// NeedsTrace implements TraceNeeder.
func (c *ClassCounter) NeedsTrace() bool { return true }

// Begin implements engine.Strategy.
func (c *ClassCounter) Begin(run int) bool {
	c.re = newRunEvents()
	return c.Strategy.Begin(run)
}

// Choose implements engine.Strategy.
func (c *ClassCounter) Choose(p *engine.Point) int {
	c.re.observe(p.Exec)
	return c.Strategy.Choose(p)
}

// End implements engine.Strategy.
func (c *ClassCounter) End(r *engine.Result) {
	a := analyze(c.re, r, true)
	c.Last = classKey(a.ev, a.procName, false)
	c.LastLazy = classKey(a.ev, a.procName, true)
	c.HB[c.Last]++
	c.Lazy[c.LastLazy]++
	c.Strategy.End(r)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
