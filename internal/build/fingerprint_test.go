package build

import (
	"path/filepath"
	"testing"
)

func TestFingerprint(t *testing.T) {
	files := map[string]string{"bank.go": "aa", "util/u.go": "bb"}
	base := Fingerprint(files, "rt1", []string{"-race"})
	if base != Fingerprint(map[string]string{"util/u.go": "bb", "bank.go": "aa"}, "rt1", []string{"-race"}) {
		t.Error("fingerprint depends on map order")
	}
	for name, fp := range map[string]string{
		"file content": Fingerprint(map[string]string{"bank.go": "ab", "util/u.go": "bb"}, "rt1", []string{"-race"}),
		"file name":    Fingerprint(map[string]string{"bank2.go": "aa", "util/u.go": "bb"}, "rt1", []string{"-race"}),
		"file added":   Fingerprint(map[string]string{"bank.go": "aa", "util/u.go": "bb", "x.go": "cc"}, "rt1", []string{"-race"}),
		"runtime":      Fingerprint(files, "rt2", []string{"-race"}),
		"flags":        Fingerprint(files, "rt1", nil),
		"tags":         Fingerprint(files, "rt1", []string{"-race", "-tags=x"}),
	} {
		if fp == base {
			t.Errorf("fingerprint ignores a change of %s", name)
		}
	}
}

func TestFileDiff(t *testing.T) {
	rec := map[string]string{"bank.go": "1", "old.go": "2", "same.go": "3"}
	cur := map[string]string{"bank.go": "9", "new.go": "4", "same.go": "3"}
	if got, want := FileDiff(rec, cur), "bank.go changed, old.go removed, new.go added"; got != want {
		t.Errorf("FileDiff = %q, want %q", got, want)
	}
	if got := FileDiff(rec, rec); got != "" {
		t.Errorf("FileDiff of equal sets = %q", got)
	}
}

func TestRelName(t *testing.T) {
	root := filepath.FromSlash("/home/me/bank")
	cache := filepath.FromSlash("/home/me/go/pkg/mod")
	for _, c := range []struct{ file, want string }{
		{"/home/me/bank/bank.go", "bank.go"},
		{"/home/me/bank/sub/x.go", "sub/x.go"},
		{"/home/me/go/pkg/mod/example.com/dep@v1.0.0/d.go", "example.com/dep@v1.0.0/d.go"},
		{"/home/me/bankrupt/x.go", "/home/me/bankrupt/x.go"},
	} {
		if got := RelName(root, cache, filepath.FromSlash(c.file)); got != c.want {
			t.Errorf("RelName(%s) = %q, want %q", c.file, got, c.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	race, tags, err := ParseFlags(Flags(true, "a,b"))
	if err != nil || !race || tags != "a,b" {
		t.Errorf("round trip = %v %q %v", race, tags, err)
	}
	if _, _, err := ParseFlags([]string{"-gcflags=x"}); err == nil {
		t.Error("no error for an unknown flag")
	}
}
