package strategy

// Estimate is the estimate of the runs of a tree unit that the split
// and the ordered coordination use.
func Estimate(u Unit) int { return estimate(u) }
