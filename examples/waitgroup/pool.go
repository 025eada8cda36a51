// Package waitgroup tracks jobs that a broker may deliver more than once.
//
// A job whose acknowledgement is slow is redelivered, so two workers can
// finish the same job. Tracker.Finish is meant to count each job once, but
// it tests the job's flag and sets it in two steps: two finishers can both
// see it clear and both call Done, driving the WaitGroup's counter negative
// (a panic). FixedTracker uses CompareAndSwap.
package waitgroup

import (
	"sync"
	"sync/atomic"
)

// Job is one unit of work.
type Job struct {
	ID       string
	finished atomic.Bool
}

// Tracker waits for started jobs to finish.
type Tracker struct {
	wg sync.WaitGroup
}

// Start records that j must finish before Wait returns.
func (t *Tracker) Start(j *Job) { t.wg.Add(1) }

// Finish records that j finished; finishing a job again does nothing.
//
// Bug: Load then Store is not atomic. Two finishers of one job can both
// call Done.
func (t *Tracker) Finish(j *Job) {
	if !j.finished.Load() {
		j.finished.Store(true)
		t.wg.Done()
	}
}

// Wait waits for every started job to finish.
func (t *Tracker) Wait() { t.wg.Wait() }

// FixedTracker is Tracker with an atomic Finish.
type FixedTracker struct{ Tracker }

// Finish records that j finished; finishing a job again does nothing.
func (t *FixedTracker) Finish(j *Job) {
	if j.finished.CompareAndSwap(false, true) {
		t.wg.Done()
	}
}
