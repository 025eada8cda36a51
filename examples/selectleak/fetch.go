// Package selectleak fetches a value with a timeout.
//
// Fetch starts the lookup in a goroutine and waits for its result or the
// timeout, whichever comes first. The result channel is unbuffered: when the
// timeout wins, nobody ever receives, and the lookup goroutine blocks on its
// send forever, a goroutine leak that grows with every slow call.
// FetchFixed gives the channel room for the one result.
package selectleak

import (
	"errors"
	"time"
)

// ErrTimeout is returned when the lookup does not answer in time.
var ErrTimeout = errors.New("lookup timed out")

type result struct {
	val string
	err error
}

// Fetch runs lookup and returns its result, or ErrTimeout after timeout.
//
// Bug: ch is unbuffered, so the lookup goroutine leaks when the timeout
// fires first.
func Fetch(lookup func() (string, error), timeout time.Duration) (string, error) {
	ch := make(chan result)
	return fetch(ch, lookup, timeout)
}

// FetchFixed is Fetch with a buffered result channel: the lookup goroutine
// can always deliver its result and exit.
func FetchFixed(lookup func() (string, error), timeout time.Duration) (string, error) {
	ch := make(chan result, 1)
	return fetch(ch, lookup, timeout)
}

func fetch(ch chan result, lookup func() (string, error), timeout time.Duration) (string, error) {
	go func() {
		v, err := lookup()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.val, r.err
	case <-time.After(timeout):
		return "", ErrTimeout
	}
}
