package ctxcancel

import (
	"context"
	"sync"
	"testing"
)

// fetchProfile stands for a network call that honours cancellation.
func fetchProfile(ctx context.Context, key string) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	default:
		return "profile of " + key, nil
	}
}

// loadWhileOtherCancels: one request gives up on the profile while another
// one, with no deadline, needs it.
func loadWhileOtherCancels(t *testing.T, l *Loader) {
	impatient, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.Load(impatient, "alice") // its error is expected: it gave up
	}()
	go func() {
		defer wg.Done()
		v, err := l.Load(context.Background(), "alice")
		if err != nil {
			t.Errorf("Load with a live context failed: %v", err)
		} else if v != "profile of alice" {
			t.Errorf("Load = %q, want %q", v, "profile of alice")
		}
	}()
	cancel()
	wg.Wait()
}

// TestSharedLoadCancel: the patient caller inherits the impatient one's
// cancellation.
func TestSharedLoadCancel(t *testing.T) { loadWhileOtherCancels(t, NewLoader(fetchProfile)) }

func TestSharedLoadFixed(t *testing.T) { loadWhileOtherCancels(t, NewFixedLoader(fetchProfile)) }
