package waitgroup

import (
	"sync"
	"testing"
)

type tracker interface {
	Start(*Job)
	Finish(*Job)
	Wait()
}

// deliverTwice hands one job to two workers, as a broker does when the
// first acknowledgement is late, and waits for the job.
func deliverTwice(t *testing.T, tr tracker) {
	job := &Job{ID: "invoice-42"}
	tr.Start(job)
	var workers sync.WaitGroup
	for i := 0; i < 2; i++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			tr.Finish(job)
		}()
	}
	tr.Wait()
	workers.Wait()
}

// TestRedeliveryNegativeCounter: both workers count the job as finished.
func TestRedeliveryNegativeCounter(t *testing.T) { deliverTwice(t, &Tracker{}) }

func TestRedeliveryFixed(t *testing.T) { deliverTwice(t, &FixedTracker{}) }
