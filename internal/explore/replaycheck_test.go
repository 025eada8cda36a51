package explore

import (
	"strings"
	"testing"
	"time"
)

// TestSettingsRoundTrip checks that the settings a schedule records are
// the exploration's, not its budget or identity, and that a replay's
// configuration takes them without losing its own fields.
func TestSettingsRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.StepLimit, c.MaxStarve, c.PCTDepth = 50, time.Millisecond, 5
	c.Disable, c.LeakIgnore = []string{"leak"}, []string{"pkg.worker"}
	c.Package, c.Dir, c.Runs, c.Strategy, c.Serve = "example.com/p", "/p", 77, "pct", true
	s := c.Settings()
	for _, k := range []string{"Package", "Dir", "Runs", "Strategy", "Files", "Replay", "Serve"} {
		if strings.Contains(s, `"`+k+`"`) {
			t.Errorf("settings %s record %s", s, k)
		}
	}
	r := DefaultConfig()
	r.Strategy, r.Replay, r.Package, r.Runs = "replay", "f.sched", "example.com/q", 1
	if err := r.ApplySettings(s); err != nil {
		t.Fatal(err)
	}
	if r.StepLimit != 50 || r.MaxStarve != time.Millisecond || r.PCTDepth != 5 || strings.Join(r.Disable, ",") != "leak" || strings.Join(r.LeakIgnore, ",") != "pkg.worker" {
		t.Errorf("settings not applied: %+v", r)
	}
	if r.Strategy != "replay" || r.Replay != "f.sched" || r.Package != "example.com/q" || r.Runs != 1 {
		t.Errorf("replay's own fields changed: %+v", r)
	}
	// A schedule claiming identity fields in its settings does not change them.
	if err := r.ApplySettings(`{"Package":"evil","StepLimit":7}`); err != nil || r.Package != "example.com/q" || r.StepLimit != 7 {
		t.Errorf("ApplySettings = %v: Package %q, StepLimit %d", err, r.Package, r.StepLimit)
	}
	if err := r.ApplySettings("{"); err == nil {
		t.Error("ApplySettings accepted bad JSON")
	}
}
