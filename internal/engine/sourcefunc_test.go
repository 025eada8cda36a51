package engine

import "testing"

func TestSourceFunc(t *testing.T) {
	for _, c := range []struct{ fn, file, want string }{
		{"example.com/m.TestMockClock.func1", "/m/m_test.go", "example.com/m.TestMockClock"},
		{"example.com/m.TestMockClock.func1.1", "/m/m_test.go", "example.com/m.TestMockClock.func1"},
		{"example.com/m.TestMockClock.func1.3.2", "/m/m_test.go", "example.com/m.TestMockClock.func3.2"},
		{"example.com/m.TestMockClock.func1.gowrap1", "/m/m_test.go", "example.com/m.TestMockClock.gowrap1"},
		{"m.Test.func1", "m_test.go", "m.Test"},
		{"example.com/a.b/m.Test_x.func1.2", "/m/x_test.go", "example.com/a.b/m.Test_x.func2"},
		// Not a test body.
		{"example.com/m.TestMockClock.func12", "/m/m_test.go", "example.com/m.TestMockClock.func12"},
		{"example.com/m.TestMain.func1", "/m/m_test.go", "example.com/m.TestMain.func1"},
		{"example.com/m.Testify.func1", "/m/m_test.go", "example.com/m.Testify.func1"},
		{"example.com/m.TestX.func1", "/m/m.go", "example.com/m.TestX.func1"},
		{"example.com/m.helper.func1", "/m/m_test.go", "example.com/m.helper.func1"},
		{"example.com/m.(*T).TestX.func1", "/m/m_test.go", "example.com/m.(*T).TestX.func1"},
		{"main", "x_test.go", "main"},
	} {
		if got := SourceFunc(c.fn, c.file); got != c.want {
			t.Errorf("SourceFunc(%q, %q) = %q, want %q", c.fn, c.file, got, c.want)
		}
	}
}
