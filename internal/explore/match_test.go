package explore

import "testing"

// TestNameMatcher checks the selection of tests and subtests against what
// go test -run and -skip select.
func TestNameMatcher(t *testing.T) {
	for _, c := range []struct {
		run, skip, name string
		want            bool
	}{
		{"", "", "TestA/x", true},
		{"TestA", "", "TestA/x", true},
		{"TestA/x", "", "TestA", true}, // partial: its subtests decide
		{"TestA/x", "", "TestA/x", true},
		{"TestA/x", "", "TestA/y", false},
		{"TestA/x", "", "TestA/x/deep", true},
		{"TestA/^x$", "", "TestA/xx", false},
		{"TestB/x|TestA/y", "", "TestA/y", true},
		{"TestB/x|TestA/y", "", "TestA/x", false},
		{"TestB/x|TestA/y", "", "TestB", true},
		{"Test(A|B)/x", "", "TestB/x", true},
		{"Test[/]A", "", "Test/A", false}, // one element: a slash in brackets
		{"TestA/a b", "", "TestA/a_b", true},
		{"", "TestA", "TestA", false},
		{"", "TestA/x", "TestA", true}, // a partial skip does not skip
		{"", "TestA/x", "TestA/x", false},
		{"", "TestA/x", "TestA/y", true},
		{"TestA", "TestA/x|TestA/y", "TestA/y", false},
	} {
		m, err := NewNameMatcher(c.run, c.skip)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Selects(c.name); got != c.want {
			t.Errorf("-run %q -skip %q selects %s: %v, want %v", c.run, c.skip, c.name, got, c.want)
		}
	}
	if _, err := NewNameMatcher("TestA/(", ""); err == nil {
		t.Error("-run TestA/( compiled")
	}
}

// TestSubNames checks that subtests with the same name are made unique as
// testing makes them.
func TestSubNames(t *testing.T) {
	u := subNames{}
	var got []string
	for _, n := range []string{"x", "x", "x#01", "", ""} {
		got = append(got, u.unique("TestA", n))
	}
	want := []string{"TestA/x", "TestA/x#01", "TestA/x#01#01", "TestA/#00", "TestA/#01"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("unique names %q, want %q", got, want)
		}
	}
}

// TestSubtestPatterns checks that only patterns that select subtests are
// kept for the runs (and recorded in schedules).
func TestSubtestPatterns(t *testing.T) {
	for _, c := range []struct{ run, skip, wantRun, wantSkip string }{
		{"TestA|TestB", "TestC", "", ""},
		{"TestA/x", "", "TestA/x", ""},
		{"TestA|TestB/x", "TestA/y", "TestA|TestB/x", "TestA/y"},
		{"Test[/]A", "(a/b)", "", ""},
	} {
		if r, s := SubtestPatterns(c.run, c.skip); r != c.wantRun || s != c.wantSkip {
			t.Errorf("SubtestPatterns(%q, %q) = %q, %q, want %q, %q", c.run, c.skip, r, s, c.wantRun, c.wantSkip)
		}
	}
}
