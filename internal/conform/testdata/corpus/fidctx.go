package prog

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Package context beyond the basics (fidelity audit): WithoutCancel,
// timeouts racing cancels, causes, AfterFunc on a done context, custom
// parent contexts, values through cancel contexts.

type ctxKey struct{}

// TestContextWithoutCancel: a WithoutCancel child keeps the parent's
// values but not its cancellation.
func TestContextWithoutCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	child := context.WithoutCancel(parent)
	cc, ccancel := context.WithCancel(child)
	defer ccancel()
	go cancel()
	<-parent.Done()
	t.Errorf("child err %v done nil %v value %v cause %v grandchild err %v",
		child.Err(), child.Done() == nil, child.Value(ctxKey{}), context.Cause(child), cc.Err())
}

// TestContextTimeoutVsCancel: a 1 ms timeout racing a goroutine's cancel
// with a cause.
func TestContextTimeoutVsCancel(t *testing.T) {
	parent, pcancel := context.WithCancelCause(context.Background())
	ctx, cancel := context.WithTimeoutCause(parent, time.Millisecond, errors.New("slow"))
	defer cancel()
	go pcancel(errors.New("stop"))
	<-ctx.Done()
	t.Errorf("err %v cause %v", ctx.Err(), context.Cause(ctx))
}

// TestContextAfterFuncDone: AfterFunc on a context already canceled runs f
// at once (in its own goroutine); stop then reports false.
func TestContextAfterFuncDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := make(chan bool, 1)
	stop := context.AfterFunc(ctx, func() { ran <- true })
	s := stop()
	<-ran
	t.Errorf("stop %v", s)
}

// TestContextAfterFuncTwoStops: two AfterFuncs on one context, one stopped
// by a goroutine racing the cancel.
func TestContextAfterFuncTwoStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan string, 2)
	context.AfterFunc(ctx, func() { ran <- "f" })
	stopG := context.AfterFunc(ctx, func() { ran <- "g" })
	stopped := make(chan bool)
	go func() { stopped <- stopG() }()
	cancel()
	s := <-stopped
	first := <-ran
	if !s {
		<-ran
	}
	t.Errorf("stopped %v first %s", s, first)
}

// wrapCtx is a Context of a type package context does not know.
type wrapCtx struct{ context.Context }

// TestContextCustomParent: a cancel context under a parent of an unknown
// type follows the parent's cancellation.
func TestContextCustomParent(t *testing.T) {
	base, cancel := context.WithCancel(context.Background())
	child, ccancel := context.WithCancel(wrapCtx{base})
	defer ccancel()
	go cancel()
	select {
	case <-child.Done():
		t.Errorf("child %v cause %v", child.Err(), context.Cause(child))
	case <-time.After(time.Second):
		t.Errorf("child not canceled")
	}
}

// TestContextChildOrder: a goroutine watching a parent and a child of it;
// the parent's cancel closes both.
func TestContextChildOrder(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	child, ccancel := context.WithTimeout(parent, time.Hour)
	defer ccancel()
	got := make(chan string)
	go func() {
		select {
		case <-parent.Done():
			got <- fmt.Sprintf("parent, child err %v", child.Err())
		case <-child.Done():
			got <- fmt.Sprintf("child, parent err %v", parent.Err())
		}
	}()
	cancel()
	t.Errorf("%s", <-got)
}

// TestContextDeadlinePassed: a deadline already passed: the context is
// done at once, with DeadlineExceeded.
func TestContextDeadlinePassed(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	select {
	case <-ctx.Done():
		t.Errorf("done %v", ctx.Err())
	default:
		t.Errorf("not done %v", ctx.Err())
	}
}

// TestContextDeadlineChildOrder: a parent's deadline closes its Done and
// then cancels its child: a goroutine woken by the parent's Done may see
// the child not cancelled yet.
func TestContextDeadlineChildOrder(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	child, ccancel := context.WithCancel(parent)
	defer ccancel()
	got := make(chan string)
	go func() {
		<-parent.Done()
		got <- fmt.Sprintf("child err %v", child.Err())
	}()
	t.Errorf("%s", <-got)
}
