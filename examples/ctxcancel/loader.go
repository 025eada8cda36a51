// Package ctxcancel shares one load of a key among concurrent callers.
//
// Loader.Load runs the load under the context of the caller that started
// it. Callers that arrive while it runs wait for its result. When that first
// caller gives up and cancels its context, the load fails with
// context.Canceled, and every waiting caller gets that error, although
// their own contexts are fine. FixedLoader runs the shared load under a
// context that the callers' cancellations do not reach.
package ctxcancel

import (
	"context"
	"sync"
)

// LoadFunc loads the value of key; it returns early with ctx.Err() when ctx
// is cancelled.
type LoadFunc func(ctx context.Context, key string) (string, error)

type call struct {
	done chan struct{}
	val  string
	err  error
}

// Loader deduplicates concurrent loads of the same key.
type Loader struct {
	load     LoadFunc
	detached bool // the fix: load under a context no caller can cancel

	mu    sync.Mutex
	calls map[string]*call
}

// NewLoader returns a Loader that calls load.
//
// Bug: the shared load runs under the first caller's context.
func NewLoader(load LoadFunc) *Loader {
	return &Loader{load: load, calls: map[string]*call{}}
}

// NewFixedLoader returns a Loader whose shared loads ignore the callers'
// cancellations; each caller still stops waiting when its own context ends.
func NewFixedLoader(load LoadFunc) *Loader {
	return &Loader{load: load, detached: true, calls: map[string]*call{}}
}

// Load returns the value of key, sharing a load in progress.
func (l *Loader) Load(ctx context.Context, key string) (string, error) {
	l.mu.Lock()
	if c, ok := l.calls[key]; ok {
		l.mu.Unlock()
		select {
		case <-c.done:
			return c.val, c.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	c := &call{done: make(chan struct{})}
	l.calls[key] = c
	l.mu.Unlock()

	loadCtx := ctx
	if l.detached {
		loadCtx = context.WithoutCancel(ctx)
	}
	c.val, c.err = l.load(loadCtx, key)

	l.mu.Lock()
	delete(l.calls, key)
	l.mu.Unlock()
	close(c.done)
	return c.val, c.err
}
