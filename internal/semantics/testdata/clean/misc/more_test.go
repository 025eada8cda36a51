package misc

import (
	"runtime"
	"testing"
)

func TestGOMAXPROCS(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 1 {
		t.Fatal("GOMAXPROCS")
	}
}
