//go:build !((amd64 || arm64) && !race)

package engine

// handoffOS is a channel of one slot.
type handoffOS struct {
	ch chan struct{}
}

//go:norace
func newHandoff() *handoff {
	h := new(handoff)
	h.ch = make(chan struct{}, 1)
	return h
}

//go:norace
func (h *handoff) own() {}

//go:norace
func (h *handoff) wait() { <-h.ch }

//go:norace
func (h *handoff) wake() {
	select {
	case h.ch <- struct{}{}:
	default: // already woken
	}
}
