package prog

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Sixth fidelity audit: a call whose step heddle takes with its function
// value (an atomic's method, a sync.Map's, sync/atomic's functions) and
// whose operands receive, in the places of an expression where the
// rewriter cannot evaluate the operands in statements before it:
// conditions, init and post statements, operands of other calls and
// operators, composite literals. Go receives first; the step comes after.
// Each program is TestAtomicStoreOfReceive's shape: the test sends, then
// loads; the goroutine's write after the receive is seen or not.

// TestAtomicCASOfReceiveInFor: a CompareAndSwap in a for condition.
func TestAtomicCASOfReceiveInFor(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan bool)
	go func() {
		for !n.CompareAndSwap(0, <-ch) {
		}
		done <- true
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicSwapOfReceiveInSwitch: a Swap as a switch tag.
func TestAtomicSwapOfReceiveInSwitch(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan int32)
	go func() {
		switch old := n.Swap(<-ch); old {
		case 0:
			done <- 0
		default:
			done <- old
		}
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicAddOfReceiveInSum: an Add as an operand of +.
func TestAtomicAddOfReceiveInSum(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan int32)
	go func() {
		s := 10 + n.Add(<-ch)
		done <- s
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicSwapOfReceiveSent: a Swap whose result is sent.
func TestAtomicSwapOfReceiveSent(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan int32, 1)
	go func() {
		done <- n.Swap(<-ch)
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicSwapOfReceiveInLiteral: a Swap in a composite literal.
func TestAtomicSwapOfReceiveInLiteral(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan []int32)
	go func() {
		olds := []int32{n.Swap(<-ch)}
		done <- olds
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicCASFuncOfReceiveInIf: atomic.CompareAndSwapInt32, whose step
// heddle takes in its first operand, in an if condition.
func TestAtomicCASFuncOfReceiveInIf(t *testing.T) {
	var n int32
	ch := make(chan int32)
	done := make(chan bool)
	go func() {
		swapped := false
		if atomic.CompareAndSwapInt32(&n, 0, <-ch) {
			swapped = true
		}
		done <- swapped
	}()
	ch <- 1
	v := atomic.LoadInt32(&n)
	<-done
	t.Errorf("n %d", v)
}

// TestSyncMapLoadOrStoreOfReceiveInIfInit: a sync.Map's LoadOrStore in
// an if statement's init.
func TestSyncMapLoadOrStoreOfReceiveInIfInit(t *testing.T) {
	var m sync.Map
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		loaded := false
		if _, ok := m.LoadOrStore("k", <-ch); ok {
			loaded = true
		}
		done <- loaded
	}()
	ch <- 1
	_, ok := m.Load("k")
	<-done
	t.Errorf("stored %v", ok)
}

// TestAtomicCASOfReceiveAfterAnd: a CompareAndSwap in the right operand
// of &&, which Go evaluates only when the left one holds: the first
// goroutine's never receives (its left operand is false), the second's
// does.
func TestAtomicCASOfReceiveAfterAnd(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan bool, 2)
	for _, try := range []bool{false, true} {
		go func() {
			done <- try && n.CompareAndSwap(0, <-ch)
		}()
	}
	ch <- 1
	v := n.Load()
	<-done
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicLoadThenReceive: x := n.Load() + <-ch, where the Load comes
// before the receive: it sees the test's Store before its send or not.
func TestAtomicLoadThenReceive(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan int32)
	go func() {
		x := n.Load() + <-ch
		done <- x
	}()
	n.Store(1)
	ch <- 10
	t.Errorf("x %d", <-done)
}
