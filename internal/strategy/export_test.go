package strategy

// SetCheckRaceIndex makes the DPORs check every race list and vector
// clock they compute from the index against a scan of the whole prefix
// (they panic on a difference).
func SetCheckRaceIndex(on bool) { checkRaceIndex = on }

// SetPOSFast turns POS's shortcut for simple steps on or off (consume);
// it returns the previous setting.
func SetPOSFast(on bool) bool {
	was := posFast
	posFast = on
	return was
}

// SetPCTFull makes s take its full pass at every point (no incremental
// pass).
func SetPCTFull(s *PCT, on bool) { s.full = on }

// PCTIncrPoints is the number of points s's incremental pass answered.
func PCTIncrPoints(s *PCT) int { return s.incrPoints }

// SetPOSMemo turns resetRacing's memo of its last verdict on or off.
func SetPOSMemo(s *POS, on bool) { s.noMemo = !on }

// SetPOSBare turns on or off resetRacing's verdicts on plain choices
// from their kind and object alone, and POSBareHits counts them.
func SetPOSBare(s *POS, on bool) { s.noBare = !on }
func POSBareHits(s *POS) int     { return s.bareHits }

// POSMemoHits is the number of choices resetRacing's memo decided.
func POSMemoHits(s *POS) int { return s.memoHits }

// POSMemoLooks is the number of plain choices resetRacing asked its memo
// about.
func POSMemoLooks(s *POS) int { return s.memoLooks }

// SetDPORReuse turns source DPOR's reuse of pending events (pendingAt) on
// or off.
func SetDPORReuse(d *DPOR, on bool) { d.noReuse = !on }

// DPOREvents is the number of pending events d built anew and rebuilt in
// place (pendingAt).
func DPOREvents(d *DPOR) (built, reused int) { return d.evBuilt, d.evReused }

// DPORWakeupNodes is the number of wakeup-tree nodes reachable from d's
// stack.
func DPORWakeupNodes(d *DPOR) int {
	seen := map[*wnode]bool{}
	var walk func(w *wnode)
	walk = func(w *wnode) {
		if w == nil || seen[w] {
			return
		}
		seen[w] = true
		for _, c := range w.children {
			walk(c)
		}
	}
	for _, nd := range d.stack {
		walk(nd.wut)
	}
	return len(seen)
}

// MaxEst, EstMul and EstAdd are the cap of the estimates of runs and
// the saturating arithmetic on them.
const MaxEst = maxEst

var EstMul, EstAdd = estMul, estAdd

// ChildRuns, AllChildRuns and Below are the estimates of the runs below
// the nodes of a DFS fragment.
var ChildRuns, AllChildRuns, Below = childRuns, allChildRuns, below

// SetPOSTrackDraws makes s note, at every Choose, the goroutine choices
// it draws a new priority for (POSDrawn).
func SetPOSTrackDraws(s *POS, on bool) { s.trackDraws = on }

// POSDrawn is the indices of the goroutine choices the last Choose of s
// drew a new priority for.
func POSDrawn(s *POS) []int { return s.drawn }
