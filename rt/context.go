package rt

import (
	"context"
	"time"

	"heddle.dev/internal/engine"
)

// WithCancel replaces context.WithCancel.
func WithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	if x := engine.Current(); x != nil {
		ctx, cancel := x.WithCancel(parent, time.Time{}, nil)
		return ctx, func() { cancel(context.Canceled) }
	}
	return context.WithCancel(parent)
}

// WithCancelCause replaces context.WithCancelCause.
func WithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	if x := engine.Current(); x != nil {
		ctx, cancel := x.WithCancel(parent, time.Time{}, nil)
		return ctx, func(cause error) {
			if cause == nil {
				cause = context.Canceled
			}
			cancel(cause)
		}
	}
	return context.WithCancelCause(parent)
}

// WithTimeout replaces context.WithTimeout.
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return WithDeadline(parent, timeoutNow().Add(d))
}

// WithTimeoutCause replaces context.WithTimeoutCause.
func WithTimeoutCause(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	return WithDeadlineCause(parent, timeoutNow().Add(d), cause)
}

// timeoutNow is the clock a timeout starts from: a read of it, but not
// one that makes late wakes observable (engine.Exec.TimerNow).
func timeoutNow() time.Time {
	if x := engine.Current(); x != nil {
		return x.TimerNow()
	}
	return time.Now()
}

// WithDeadline replaces context.WithDeadline.
func WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause replaces context.WithDeadlineCause.
func WithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	if x := engine.Current(); x != nil {
		ctx, cancel := x.WithCancel(parent, d, cause)
		return ctx, func() { cancel(context.Canceled) }
	}
	return context.WithDeadlineCause(parent, d, cause)
}

// ContextAfterFunc replaces context.AfterFunc.
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	if x := engine.Current(); x != nil {
		return x.ContextAfterFunc(ctx, f)
	}
	return context.AfterFunc(ctx, f)
}

// Cause replaces context.Cause.
func Cause(ctx context.Context) error {
	if err, ok := engine.ContextCause(ctx); ok {
		return err
	}
	return context.Cause(ctx)
}
