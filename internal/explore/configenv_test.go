package explore

import (
	"os"
	"strings"
	"testing"
)

// TestConfigEnv: a configuration longer than Linux takes in one
// environment variable (a unit of a split search tree of a long run) goes
// through a file.
func TestConfigEnv(t *testing.T) {
	short := []byte(`{"Strategy":"dfs"}`)
	e, remove, err := ConfigEnv(short, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	remove()
	if e != EnvConfig+`={"Strategy":"dfs"}` {
		t.Errorf("short: %q", e)
	}
	long := []byte(`{"Strategy":"` + strings.Repeat("x", 200<<10) + `"}`)
	e, remove, err = ConfigEnv(long, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name, ok := strings.CutPrefix(e, EnvConfig+"=@")
	if !ok || len(e) > maxEnvConfig {
		t.Fatalf("long: %.100q", e)
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != string(long) {
		t.Fatalf("long: the file holds %d bytes (%v), want %d", len(b), err, len(long))
	}
	remove()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("the file is left after remove: %v", err)
	}
}
