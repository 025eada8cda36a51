package engine

import "testing"

type firstChoice struct{}

func (firstChoice) Begin(int) bool    { return true }
func (firstChoice) Choose(*Point) int { return 0 }
func (firstChoice) End(*Result)       {}

// A receive that finds a foreign channel closed (the Done channel of a
// context cancelled before the run, or by an earlier one) met no partner:
// no goroutine outside heddle's control took part in the run, so the run's
// own channels must not be probed as foreign ones, which makes a run whose
// goroutines are left blocked wait ForeignWait of real time at its end.
// A receive that took a value sent natively did have a partner.
func TestProbeOfClosedChannelIsNoPartner(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	sent := make(chan struct{})
	go func() { sent <- struct{}{} }() // a goroutine heddle does not control
	for _, c := range []struct {
		name    string
		ch      chan struct{}
		partner bool
	}{{"closed", closed, false}, {"sent by a native goroutine", sent, true}} {
		var seen bool
		res := Run(Config{}, firstChoice{}, func() {
			e := Current()
			e.Select([]ChanCase{&structRecv{ch: c.ch}}, false)
			seen = e.nativeSeen()
		})
		if res.Bug != nil {
			t.Fatalf("%s: %s: %s", c.name, res.Bug.Kind, res.Bug.Message)
		}
		if seen != c.partner {
			t.Errorf("%s: after the receive, nativeSeen() = %v, want %v", c.name, seen, c.partner)
		}
	}
}
