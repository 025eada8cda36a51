package build

import (
	"reflect"
	"testing"
)

func TestTestOnly(t *testing.T) {
	l := &listed{ImportPath: "example.com/m", Deps: []string{"example.com/m/clock", "sync", "time"}}
	byPath := map[string]*listed{}
	for _, p := range []*listed{
		l,
		{ImportPath: "example.com/m/clock"},
		{ImportPath: "sync", Standard: true},
		{ImportPath: "time", Standard: true},
		{ImportPath: "testing", Standard: true},
		{ImportPath: "example.com/m [example.com/m.test]"},
		{ImportPath: "example.com/m_test [example.com/m.test]"},
		{ImportPath: "example.com/m/testutil [example.com/m.test]"},
		{ImportPath: "github.com/stretchr/testify/assert"},
	} {
		byPath[p.ImportPath] = p
	}
	testDeps := []string{"example.com/m [example.com/m.test]", "example.com/m/clock", "example.com/m/testutil [example.com/m.test]",
		"example.com/m_test [example.com/m.test]", "github.com/stretchr/testify/assert", "sync", "testing", "time"}
	got := testOnly(l, testDeps, byPath)
	want := []string{"example.com/m/testutil", "github.com/stretchr/testify/assert"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("testOnly = %q, want %q", got, want)
	}
}
