package selectleak

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// lookup stands for a fast call to a local service.
func lookup() (string, error) {
	return strings.ToUpper("value"), nil
}

// TestFetchLeak: the lookup answers in well under the timeout, except
// when the machine is slow for 50ms.
func TestFetchLeak(t *testing.T) {
	v, err := Fetch(lookup, 50*time.Millisecond)
	if err != nil && !errors.Is(err, ErrTimeout) {
		t.Fatal(err)
	}
	if err == nil && v != "VALUE" {
		t.Errorf("Fetch = %q, want %q", v, "VALUE")
	}
}

func TestFetchFixed(t *testing.T) {
	v, err := FetchFixed(lookup, 50*time.Millisecond)
	if err != nil && !errors.Is(err, ErrTimeout) {
		t.Fatal(err)
	}
	if err == nil && v != "VALUE" {
		t.Errorf("FetchFixed = %q, want %q", v, "VALUE")
	}
}
