package engine

import (
	"fmt"
	"unsafe"
)

// OpKind is the kind of a visible operation: what a goroutine announces at a
// scheduling point before heddle lets it run.
type OpKind uint8

// The visible operations.
const (
	OpNone          OpKind = iota
	OpStart                // a new goroutine's first step
	OpExit                 // a goroutine returned (trace only)
	OpYield                // runtime.Gosched
	OpSend                 // ch <- v
	OpRecv                 // <-ch
	OpSelect               // select with several cases or a default
	OpClose                // close(ch)
	OpChanLen              // len(ch)
	OpLock                 // Mutex.Lock
	OpTryLock              // Mutex.TryLock
	OpUnlock               // Mutex.Unlock
	OpRLock                // RWMutex.RLock
	OpRUnlock              // RWMutex.RUnlock
	OpWLock                // RWMutex.Lock, first phase: claim the writer slot
	OpWLockWait            // RWMutex.Lock, second phase: wait for readers to leave
	OpWUnlock              // RWMutex.Unlock
	OpRWTryLock            // RWMutex.TryLock
	OpRWTryRLock           // RWMutex.TryRLock
	OpWGAdd                // WaitGroup.Add / Done
	OpWGWait               // WaitGroup.Wait
	OpOnce                 // Once.Do
	OpOnceDone             // Once.Do: f returned
	OpCondWait             // Cond.Wait, first phase: join the wait list
	OpCondBlocked          // Cond.Wait, second phase: wait to be signalled
	OpCondSignal           // Cond.Signal
	OpCondBroadcast        // Cond.Broadcast
	OpAtomicLoad           // an atomic load
	OpAtomicWrite          // an atomic store, swap, add or compare-and-swap
	OpMapRead              // sync.Map read
	OpMapWrite             // sync.Map write
	OpSleep                // time.Sleep
	OpTimerFire            // a timer fires (a step of a pseudo-goroutine)
	OpTimerStop            // Timer.Stop / Reset, Ticker.Stop / Reset
	OpCancel               // a context is cancelled
	OpBlock                // select {}: blocks forever
	OpRacyRead             // a racy plain-memory read (heddle test -racy)
	OpRacyWrite            // a racy plain-memory write (heddle test -racy)
	OpRacyWriteEnd         // the end of a racy map write (heddle test -racy)
	OpCtxErr               // ctx.Err / context.Cause: a read of a context's cancellation
	OpArrive               // a blocking channel operation that cannot complete arrives: its goroutine waits on the channels from now on (trace only)
	OpTestRead             // a failing testing.T call: reads whether the test completed, writes its failure (first message)
	OpTestDone             // the test completed (returned and ran its cleanups): later failing calls panic
	OpNative               // a goroutine detached while it waited in code heddle does not control comes back (detach.go)
	OpRacyStore            // a racy plain-memory write issued into its goroutine's store buffer (heddle test -racy, storebuf.go)
	OpRacyCommit           // the oldest store of a buffer reaches memory (a step of the buffer's flusher pseudo-goroutine)
	OpRacyFence            // a goroutine waits for its store buffer to drain before a synchronization operation
	OpBubbleWait           // synctest.Wait: wait until every other goroutine of the bubble is durably blocked (bubble.go)
	OpBubbleEnd            // synctest.Test: wait until the bubble's goroutines have exited, or are deadlocked
	OpFSRead               // a file-system step that looks names up or lists a directory: writes its file's object (Obj), reads the tree's names (rt/file.go)
	OpFSWrite              // a file-system step that changes the tree's names (create, remove, rename, mkdir): writes its file's object and the tree's names
	nOpKinds
)

var opNames = [...]string{
	OpNone: "none", OpStart: "start", OpExit: "exit", OpYield: "gosched",
	OpSend: "send", OpRecv: "recv", OpSelect: "select", OpClose: "close", OpChanLen: "len",
	OpLock: "lock", OpTryLock: "trylock", OpUnlock: "unlock",
	OpRLock: "rlock", OpRUnlock: "runlock", OpWLock: "wlock", OpWLockWait: "wlock-wait", OpWUnlock: "wunlock",
	OpRWTryLock: "trylock", OpRWTryRLock: "tryrlock",
	OpWGAdd: "wg.add", OpWGWait: "wg.wait", OpOnce: "once.do", OpOnceDone: "once.done",
	OpCondWait: "cond.wait", OpCondBlocked: "cond.wait-signal", OpCondSignal: "cond.signal", OpCondBroadcast: "cond.broadcast",
	OpAtomicLoad: "atomic.load", OpAtomicWrite: "atomic.write", OpMapRead: "map.read", OpMapWrite: "map.write",
	OpSleep: "sleep", OpTimerFire: "timer", OpTimerStop: "timer.stop", OpCancel: "cancel", OpBlock: "block",
	OpRacyRead: "racy.read", OpRacyWrite: "racy.write", OpRacyWriteEnd: "racy.write-end",
	OpCtxErr: "ctx.err",
	OpArrive: "arrive", OpTestRead: "t.fail", OpTestDone: "t.done", OpNative: "native",
	OpRacyStore: "racy.store", OpRacyCommit: "racy.commit", OpRacyFence: "racy.fence",
	OpBubbleWait: "synctest.wait", OpBubbleEnd: "synctest.test",
	OpFSRead: "fs.read", OpFSWrite: "fs.write",
}

//go:norace
func (k OpKind) String() string {
	if int(k) < len(opNames) && opNames[k] != "" {
		return opNames[k]
	}
	return fmt.Sprintf("op(%d)", k)
}

// Op is the pending operation of a parked goroutine.
type Op struct {
	Kind  OpKind
	Obj   unsafe.Pointer // the object operated on (channel, mutex, ...), if any
	Cases []ChanCase     // for OpSend, OpRecv, OpSelect
	Dflt  bool           // the select has a default case
	Timer *Timer         // for OpSleep
	PC    uintptr        // call site, when the run records positions
	// Group is, for a racy map access that stands for its statement's
	// racy group too (Exec.MapIn), the group: the step reads it, or
	// writes it if the access writes the map.
	Group unsafe.Pointer
}

// ChanCase is one channel operation of a send, a receive or a select,
// implemented by the generic case types of package rt. The engine decides
// when the operation can proceed; the case performs it on the real channel.
type ChanCase interface {
	// Chan is the channel's address, nil for a nil channel.
	Chan() unsafe.Pointer
	// IsSend reports whether the case sends.
	IsSend() bool
	// Len and Cap are the channel's len and cap.
	Len() int
	Cap() int
	// Do performs the operation; the engine calls it only when it cannot
	// block for long (a buffered slot, a closed channel, or a partner that
	// is performing the matching operation).
	Do()
	// Try performs the operation if it can proceed at once and reports
	// whether it did. It is used to probe channels that heddle did not see
	// being made.
	Try() bool
}
