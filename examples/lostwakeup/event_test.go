package lostwakeup

import "testing"

// TestEventLostWakeup: a loader sets the event while the main goroutine
// waits for it.
func TestEventLostWakeup(t *testing.T) {
	loaded := NewEvent()
	config := ""
	go func() {
		config = "ready"
		loaded.Set()
	}()
	loaded.Wait()
	if config != "ready" {
		t.Errorf("config = %q after the event, want %q", config, "ready")
	}
}

func TestEventFixed(t *testing.T) {
	loaded := NewFixedEvent()
	config := ""
	go func() {
		config = "ready"
		loaded.Set()
	}()
	loaded.Wait()
	if config != "ready" {
		t.Errorf("config = %q after the event, want %q", config, "ready")
	}
}
