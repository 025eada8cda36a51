package strategy_test

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"heddle.dev/internal/engine"
)

// outcome is what a run of a corpus program observed: the values each
// goroutine read, in its program order, and the final values of the
// program's variables.
type outcome struct {
	logs [8][]int32
	vars []*int32
}

func (o *outcome) log(g int, v int32) { o.logs[g] = append(o.logs[g], v) }

func (o *outcome) String() string {
	var b strings.Builder
	for g, l := range o.logs {
		if len(l) > 0 {
			fmt.Fprintf(&b, "g%d%v ", g, l)
		}
	}
	for i, p := range o.vars {
		fmt.Fprintf(&b, "x%d=%d ", i, atomic.LoadInt32(p))
	}
	return b.String()
}

// bugKey names a bug by kind and location: for deadlocks and leaks the
// goroutines blocked and what they block on, otherwise the goroutine and
// the message.
func bugKey(b *engine.Bug) string {
	if b == nil {
		return ""
	}
	switch b.Kind {
	case engine.KindDeadlock, engine.KindLeak:
		var s []string
		for _, g := range b.Blocked {
			s = append(s, g.ID+":"+g.PendingKind().String())
		}
		sort.Strings(s)
		return b.Kind + " " + strings.Join(s, ",")
	}
	id := ""
	if b.G != nil {
		id = b.G.ID
	}
	return b.Kind + " " + id + ": " + b.Message
}
