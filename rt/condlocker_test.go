package rt_test

import (
	"fmt"
	"sync"
	"testing"

	"heddle.dev/rt"
)

// lockedQueue promotes sync.Mutex's Lock and Unlock: as a Cond's L, the
// Cond's Wait must unlock and relock it through heddle, as the rewritten
// q.Lock() and q.Unlock() do.
type lockedQueue struct {
	sync.Mutex
	items int
}

// TestCondEmbeddedMutexLocker: a Cond whose L is a type embedding a
// sync.Mutex works under exploration (it used to unlock the real mutex
// natively, and Go aborted: "unlock of unlocked mutex").
func TestCondEmbeddedMutexLocker(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		q := &lockedQueue{}
		c := sync.NewCond(q)
		rt.Go(func() {
			rt.MutexLock(&q.Mutex)
			q.items++
			rt.MutexUnlock(&q.Mutex)
			rt.CondSignal(c)
		})
		rt.MutexLock(&q.Mutex)
		for q.items == 0 {
			rt.CondWait(c)
		}
		n := q.items
		rt.MutexUnlock(&q.Mutex)
		var l sync.Locker = q
		rt.LockerLock(l)
		rt.MutexUnlock(&q.Mutex)
		return fmt.Sprint(n)
	})
	if len(bugs) != 0 || keys(outcomes) != "1" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}
