package build

import (
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

func TestToolModfile(t *testing.T) {
	in := `module example.com/bank

go 1.22

require golang.org/x/sync v0.7.0

replace example.com/dep => ../dep
`
	out, err := ToolModfile([]byte(in), "/cache/rt-1", map[string]string{
		"example.com/dep":   "/cache/rewrite/dep",
		"golang.org/x/sync": "/cache/rewrite/sync",
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("heddle.mod", out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if f.Module.Mod.Path != "example.com/bank" || f.Go.Version != "1.22" {
		t.Errorf("module or go line changed:\n%s", out)
	}
	req := map[string]string{}
	for _, r := range f.Require {
		req[r.Mod.Path] = r.Mod.Version
	}
	if req["heddle.dev"] != "v0.0.0" || req["golang.org/x/sync"] != "v0.7.0" {
		t.Errorf("requires = %v\n%s", req, out)
	}
	rep := map[string]string{}
	for _, r := range f.Replace {
		if _, dup := rep[r.Old.Path]; dup {
			t.Errorf("two replaces of %s:\n%s", r.Old.Path, out)
		}
		rep[r.Old.Path] = r.New.Path
	}
	want := map[string]string{
		"heddle.dev":        "/cache/rt-1",
		"example.com/dep":   "/cache/rewrite/dep",
		"golang.org/x/sync": "/cache/rewrite/sync",
	}
	for m, d := range want {
		if rep[m] != d {
			t.Errorf("replace %s => %q, want %q\n%s", m, rep[m], d, out)
		}
	}
}

func TestToolModfileKeepsHeddleVersion(t *testing.T) {
	in := "module example.com/m\n\ngo 1.24\n\nrequire heddle.dev v0.3.0\n\ntool heddle.dev/cmd/heddle\n"
	out, err := ToolModfile([]byte(in), "/rt", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Count(s, "heddle.dev v") != 1 || !strings.Contains(s, "heddle.dev v0.3.0") {
		t.Errorf("the user's requirement on heddle.dev was not kept alone:\n%s", s)
	}
	if !strings.Contains(s, "replace heddle.dev => /rt") {
		t.Errorf("no replace of heddle.dev:\n%s", s)
	}
}

func TestToolModfileSelf(t *testing.T) {
	in := "module heddle.dev\n\ngo 1.26\n"
	out, err := ToolModfile([]byte(in), "/rt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "require") || strings.Contains(string(out), "replace") {
		t.Errorf("heddle testing itself got a require or replace:\n%s", out)
	}
}

func TestToolModfileBad(t *testing.T) {
	if _, err := ToolModfile([]byte("modul x\n"), "/rt", nil); err == nil {
		t.Error("no error for a malformed go.mod")
	}
}
