package strategy

// SetCheckRaceIndex makes the DPORs check every race list and vector
// clock they compute from the index against a scan of the whole prefix
// (they panic on a difference).
func SetCheckRaceIndex(on bool) { checkRaceIndex = on }
