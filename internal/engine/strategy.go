package engine

// Strategy decides the interleaving of each run. It lives across the runs
// of one exploration and may keep state to steer the next run.
//
// The lifecycle: before each run, Begin(n) (n counts from 1) returns false
// to end the exploration. During the run, Choose is called at every
// scheduling point where at least two choices are enabled and returns the
// index of the one to take. After the run, End receives what happened.
type Strategy interface {
	Begin(run int) bool
	Choose(p *Point) int
	End(r *Result)
}
