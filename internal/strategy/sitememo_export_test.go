package strategy

import "runtime"

// SiteReader reads call sites as spinTracker.observe does, with its memo
// (callSite) and without (siteHash).
type SiteReader struct{ t spinTracker }

// Site returns the call site of its caller, read with the memo and
// without it.
func (r *SiteReader) Site() (memo, direct uint64) { return r.site() }

// site is at observe's place: callSite skips its frame and callSite's.
//
//go:noinline
func (r *SiteReader) site() (memo, direct uint64) {
	memo = r.t.callSite()
	var pcs callStack
	n := runtime.Callers(2, pcs[:])
	return memo, siteHash(pcs[:n])
}

// MemoLen is the number of call stacks in the memo.
func (r *SiteReader) MemoLen() int { return len(r.t.siteMemo) }

// SetSiteMemo turns the spin tracker's memo of call sites on or off; it
// returns the previous setting.
func SetSiteMemo(on bool) bool {
	was := siteMemoOn
	siteMemoOn = on
	return was
}
