// Package conform checks heddle against the real Go runtime: it runs a
// corpus of small test programs natively, many times and with several
// GOMAXPROCS values and perturbations, collects every outcome a run shows
// (pass, the first failure message, a panic, a deadlock, the positions of
// leaked goroutines), and checks that an exhaustive heddle search reaches
// each one. A native outcome heddle cannot reach is a fidelity bug: an
// interleaving real Go runs that heddle's model leaves out.
// See docs/conformance.md.
package conform

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"
)

// Program is one test function of the corpus.
type Program struct {
	Name string // the test function, TestX
	File string // the file that declares it, as written in the module (x_test.go)
	// Timers is set when the program's file uses package time or context:
	// a goroutine blocked in it may still be woken by a timer, so the
	// native leak check waits for leftover goroutines to stay blocked
	// for a while instead of trusting one snapshot.
	Timers bool
	Tags   []string // "generated", "racy", ...
	Doc    string   // the function's doc comment, first sentence
}

// File is one Go file of the corpus, declaring one or more programs.
type File struct {
	Name     string // x_test.go
	Src      []byte
	Programs []*Program
}

// Corpus is the set of program files, all in one package (prog).
type Corpus struct {
	Files []*File
}

// Programs lists the corpus's programs in file order.
func (c *Corpus) Programs() []*Program {
	var ps []*Program
	for _, f := range c.Files {
		ps = append(ps, f.Programs...)
	}
	return ps
}

// Lookup returns the program named name, or nil.
func (c *Corpus) Lookup(name string) *Program {
	for _, p := range c.Programs() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Select returns a corpus with only the programs keep accepts (and the
// files that declare them: a file's other programs stay in the source but
// are not run).
func (c *Corpus) Select(keep func(*Program) bool) *Corpus {
	out := &Corpus{}
	for _, f := range c.Files {
		g := &File{Name: f.Name, Src: f.Src}
		for _, p := range f.Programs {
			if keep(p) {
				g.Programs = append(g.Programs, p)
			}
		}
		if len(g.Programs) > 0 {
			out.Files = append(out.Files, g)
		}
	}
	return out
}

//go:embed testdata/corpus/*.go
var handFS embed.FS

// Hand returns the hand-written corpus (testdata/corpus).
func Hand() (*Corpus, error) {
	ents, err := handFS.ReadDir("testdata/corpus")
	if err != nil {
		return nil, err
	}
	c := &Corpus{}
	for _, e := range ents {
		src, err := handFS.ReadFile(path.Join("testdata/corpus", e.Name()))
		if err != nil {
			return nil, err
		}
		f, err := ParseFile(strings.TrimSuffix(e.Name(), ".go")+"_test.go", src, "hand")
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f)
	}
	return c, nil
}

// Full returns the hand-written corpus, the generated programs for seeds
// 1 to gen and the generated racy programs (GenerateRacy) for seeds 1 to
// racy.
func Full(gen, racy int) (*Corpus, error) {
	c, err := Hand()
	if err != nil {
		return nil, err
	}
	for seed := int64(1); seed <= int64(gen); seed++ {
		f, err := Generate(seed)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f)
	}
	for seed := int64(1); seed <= int64(racy); seed++ {
		f, err := GenerateRacy(seed)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f)
	}
	return c, nil
}

// ParseFile reads the programs (functions TestX(t *testing.T)) of a corpus
// file. Tags are given to every program; a doc comment line "conform:
// tag1 tag2" adds more.
func ParseFile(name string, src []byte, tags ...string) (*File, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if af.Name.Name != PackageName {
		return nil, fmt.Errorf("%s: package %s, want %s", name, af.Name.Name, PackageName)
	}
	timers := false
	for _, im := range af.Imports {
		if p := strings.Trim(im.Path.Value, `"`); p == "time" || p == "context" {
			timers = true
		}
	}
	f := &File{Name: name, Src: src}
	for _, d := range af.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") {
			continue
		}
		if tParam(fd) == "" {
			return nil, fmt.Errorf("%s: %s must take a named *testing.T", name, fd.Name.Name)
		}
		p := &Program{Name: fd.Name.Name, File: name, Timers: timers, Tags: append([]string(nil), tags...)}
		if fd.Doc != nil {
			for _, l := range strings.Split(fd.Doc.Text(), "\n") {
				if rest, ok := strings.CutPrefix(l, "conform:"); ok {
					p.Tags = append(p.Tags, strings.Fields(rest)...)
				} else if p.Doc == "" && strings.TrimSpace(l) != "" {
					p.Doc = strings.TrimSpace(l)
				}
			}
		}
		sort.Strings(p.Tags)
		f.Programs = append(f.Programs, p)
	}
	if len(f.Programs) == 0 {
		return nil, fmt.Errorf("%s: no test function", name)
	}
	return f, nil
}

// tParam returns the name of fd's *testing.T parameter, if it has exactly
// one, named.
func tParam(fd *ast.FuncDecl) string {
	ps := fd.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) != 1 {
		return ""
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return ""
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return ""
	}
	if n := ps[0].Names[0].Name; n != "_" {
		return n
	}
	return ""
}

// HasTag reports whether p has tag.
func (p *Program) HasTag(tag string) bool {
	for _, t := range p.Tags {
		if t == tag {
			return true
		}
	}
	return false
}
