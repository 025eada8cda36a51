package explore

import (
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
)

var engineBugForTest = engine.Bug{Kind: engine.KindFail, Message: "x_test.go:3: failed"}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestIsTestFunc(t *testing.T) {
	for name, want := range map[string]bool{
		"TestFoo": true, "Test": true, "Test_x": true, "ExampleBar": true, "FuzzX": true, "BenchmarkY": true,
		"Testify": false, "helper": false, "waitFor": false, "Examples": false,
	} {
		if got := isTestFunc(name); got != want {
			t.Errorf("isTestFunc(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestStarvedText(t *testing.T) {
	if s := starvedText(1); s != "before the goroutines that could run took their next step" {
		t.Errorf("1ns: %q", s)
	}
	if s := starvedText(10 * time.Millisecond); s != "while a goroutine that could run had waited 10ms" {
		t.Errorf("10ms: %q", s)
	}
	if m := timingMessage(1, &engineBugForTest); !contains(m, "always run before a timer fires") || contains(m, "1ns") {
		t.Errorf("timing message for no starvation: %q", m)
	}
}

func TestInTestOnly(t *testing.T) {
	defer setTestOnly(nil)
	setTestOnly([]string{"github.com/stretchr/testify/assert", "gopkg.in/yaml.v3", "example.com/m/internal/waitfor"})
	for fn, want := range map[string]bool{
		"github.com/stretchr/testify/assert.Eventually":       true,
		"github.com/stretchr/testify/assert.Eventually.func1": true,
		"gopkg.in/yaml.v3.(*decoder).unmarshal":               true,
		"example.com/m/internal/waitfor.Wait":                 true,
		"github.com/stretchr/testify/require.Eventually":      false,
		"example.com/m.(*Worker).Start":                       false,
		"example.com/m/internal/waitforever.Wait":             false,
		"":                                                    false,
	} {
		if got := inTestOnly(fn); got != want {
			t.Errorf("inTestOnly(%q) = %v, want %v", fn, got, want)
		}
	}
}
