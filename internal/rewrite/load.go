package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"heddle.dev/internal/cachefile"
)

// Version identifies the rewriter's output format. It is part of every
// cache key: change it whenever the generated code changes.
const Version = "heddle-rewrite-54"

// Options configures Rewrite.
type Options struct {
	Dir        string    // directory to load from (inside the user's module)
	Patterns   []string  // package patterns, as given to go test (default ".")
	BuildFlags []string  // e.g. "-tags=foo", passed to go/packages
	Env        []string  // environment for go/packages (nil = os.Environ()); the caller sets GOWORK=off, GOFLAGS etc.
	CacheDir   string    // directory where rewritten files are written, content-addressed (sha256 of input + rewriter version)
	Verbose    io.Writer // if non-nil, print which packages are rewritten and why
	// Notes, if non-nil, receives what the user should know (heddle test
	// -v): which dependency modules were copied and rewritten.
	Notes io.Writer
	// NoTests leaves the packages' _test.go files out: they are neither
	// loaded nor rewritten, and need not compile (heddle run builds a
	// program, not its tests).
	NoTests bool
	// Racy are statements a race-detector phase saw racing: each becomes
	// a scheduling point (heddle test -racy; see RacyStmt).
	Racy []RacyStmt
}

// Result is what the build needs.
type Result struct {
	Overlay  map[string]string // original absolute file path -> absolute path of its rewritten version (for go build -overlay)
	Packages []string          // import paths of every rewritten package, sorted
	Tested   []string          // import paths matched by Patterns (the packages under test), in order
	Files    map[string]string // original absolute path -> sha256 hex of the rewritten content (fingerprint input)
	Replace  map[string]string // module path -> directory of a writable copy of that module, for dependencies that had to be rewritten
	// RacyMissed are the statements of Options.Racy that got no
	// scheduling point: outside the rewritten files, or at a line with
	// no statement in a function.
	RacyMissed []RacyStmt
	// RacyAdded are the statements given scheduling points besides
	// Options.Racy's: they access a shared variable a statement of
	// Options.Racy accesses (see racyExpand).
	RacyAdded []RacyStmt
}

// rewriteCount counts the files actually rewritten (not found in the
// cache); tests use it.
var rewriteCount int

// Rewrite loads the packages matched by opts.Patterns, selects the
// packages to rewrite (see the package documentation), rewrites them into
// opts.CacheDir and returns what the build needs.
func Rewrite(opts Options) (*Result, error) {
	if opts.CacheDir == "" {
		return nil, errors.New("rewrite: no cache directory")
	}
	cacheDir, err := filepath.Abs(opts.CacheDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, err
	}
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	vlog := func(format string, args ...any) {
		if opts.Verbose != nil {
			fmt.Fprintf(opts.Verbose, format+"\n", args...)
		}
	}

	// Phase 1: the import graph, without types.
	cfg := &packages.Config{
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		Dir:        opts.Dir,
		Env:        env,
		BuildFlags: opts.BuildFlags,
		Tests:      !opts.NoTests,
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	if err := noMatch(roots, patterns, opts.Dir); err != nil {
		return nil, err
	}
	res := &Result{Overlay: map[string]string{}, Files: map[string]string{}, Replace: map[string]string{}}
	seenTested := map[string]bool{}
	for _, p := range roots {
		if isTestMain(p) || strings.Contains(p.ID, " [") {
			continue
		}
		if !seenTested[p.PkgPath] {
			seenTested[p.PkgPath] = true
			res.Tested = append(res.Tested, p.PkgPath)
		}
	}
	for _, p := range roots {
		// A pattern that matches only an external test package.
		if strings.HasSuffix(p.PkgPath, "_test") && !isTestMain(p) {
			base := strings.TrimSuffix(p.PkgPath, "_test")
			if !seenTested[base] {
				seenTested[base] = true
				res.Tested = append(res.Tested, base)
			}
		}
	}

	// Selection.
	reasons := map[string]string{} // PkgPath -> why it is rewritten
	isRoot := map[string]bool{}
	for _, p := range roots {
		if !isTestMain(p) {
			isRoot[p.PkgPath] = true
		}
	}
	visited := map[*packages.Package]bool{}
	var visit func(p *packages.Package, from string)
	visit = func(p *packages.Package, from string) {
		if visited[p] {
			return
		}
		visited[p] = true
		if isTestMain(p) {
			for _, q := range p.Imports {
				visit(q, from)
			}
			return
		}
		if p.Module == nil {
			return // standard library (or GOPATH mode): never rewritten
		}
		if isHeddle(p) {
			return // heddle's own runtime must never be rewritten
		}
		if _, done := reasons[p.PkgPath]; !done {
			switch {
			case isRoot[p.PkgPath]:
				reasons[p.PkgPath] = "package under test"
			case p.Module.Main:
				reasons[p.PkgPath] = "main-module package imported by " + from
			default:
				if why := usesConcurrency(p); why != "" {
					reasons[p.PkgPath] = "dependency (module " + p.Module.Path + ") " + why
				}
			}
		}
		for _, q := range p.Imports {
			visit(q, p.PkgPath)
		}
	}
	for _, p := range roots {
		visit(p, p.PkgPath)
	}

	// Phase 2: syntax and types of the selected packages.
	full := packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedModule | packages.NeedTypesSizes
	cfg2 := *cfg
	cfg2.Mode = full
	cfg2.Fset = token.NewFileSet()
	loaded, err := packages.Load(&cfg2, patterns...)
	if err != nil {
		return nil, err
	}
	var deps []string
	for path := range reasons {
		if !isRoot[path] && !strings.HasSuffix(path, "_test") {
			deps = append(deps, path)
		}
	}
	sort.Strings(deps)
	if len(deps) > 0 {
		cfg3 := cfg2
		cfg3.Tests = false
		more, err := packages.Load(&cfg3, deps...)
		if err != nil {
			return nil, err
		}
		loaded = append(loaded, more...)
	}
	if err := loadErrors(loaded); err != nil {
		return nil, err
	}

	type job struct {
		pkg  *packages.Package
		file *ast.File
		path string
	}
	done := map[string]bool{}
	var jobs []job
	// Prefer the test variant of a package: it has every file.
	sort.SliceStable(loaded, func(i, j int) bool {
		return strings.Contains(loaded[i].ID, " [") && !strings.Contains(loaded[j].ID, " [")
	})
	for _, p := range loaded {
		if isTestMain(p) || p.TypesInfo == nil {
			continue
		}
		if _, ok := reasons[p.PkgPath]; !ok {
			continue
		}
		for _, f := range p.Syntax {
			name := cfg2.Fset.Position(f.Package).Filename
			if done[name] || !strings.HasSuffix(name, ".go") {
				continue
			}
			done[name] = true
			jobs = append(jobs, job{p, f, name})
		}
	}

	racy := opts.Racy
	if len(racy) > 0 {
		files := make([]racyFile, len(jobs))
		for i, j := range jobs {
			files[i] = racyFile{path: j.path, file: j.file, info: j.pkg.TypesInfo}
		}
		racy = racyExpand(cfg2.Fset, files, racy)
		given := map[string]bool{}
		for _, s := range opts.Racy {
			given[fmt.Sprintf("%s:%d", s.File, s.Line)] = true
		}
		for _, s := range racy {
			if !given[fmt.Sprintf("%s:%d", s.File, s.Line)] {
				res.RacyAdded = append(res.RacyAdded, s)
			}
		}
	}
	racyBy := map[string][]RacyStmt{}
	for _, s := range racy {
		racyBy[s.File] = append(racyBy[s.File], s)
	}
	rewritten := map[string]bool{}
	// The packages rewritten: a file's rewriting depends on which of the
	// packages it calls are (planFileKeep), so the set is in every key.
	rewrittenPaths := map[string]bool{}
	var paths []string
	for p := range reasons {
		rewrittenPaths[p] = true
		paths = append(paths, p)
	}
	sort.Strings(paths)
	rewrittenKey := hashStrings(paths...)
	pkgKeys := map[*packages.Package]string{}
	modCopies := map[string]string{}   // module path -> copy dir
	modVersions := map[string]string{} // module path -> language version ("go1.16")
	modNoGo := map[string]bool{}       // module path -> its go.mod has no go line
	for _, j := range jobs {
		src, err := os.ReadFile(j.path)
		if err != nil {
			return nil, err
		}
		goVersion := ""
		if m := j.pkg.Module; m != nil {
			if m.GoVersion != "" {
				goVersion = "go" + m.GoVersion
			} else {
				goVersion = noGoLine
			}
		}
		if v, ok := j.pkg.TypesInfo.FileVersions[j.file]; ok && v != "" {
			goVersion = v
		}
		pk, ok := pkgKeys[j.pkg]
		if !ok {
			pk = packageKey(j.pkg)
			pkgKeys[j.pkg] = pk
		}
		key := hashStrings(Version, goVersion, j.path, string(src), pk, rewrittenKey)
		racy := racyBy[j.path]
		delete(racyBy, j.path)
		if len(racy) > 0 {
			key = hashStrings(key, racyKey(racy))
			// A dry run on a fresh copy of the rewriter: the file's
			// AST is rewritten in place below, or not at all on a
			// cache hit.
			res.RacyMissed = append(res.RacyMissed, newRewriter(cfg2.Fset, j.file, j.pkg.TypesInfo, j.pkg.Types, goVersion).racyDryRun(racy)...)
		}
		out := filepath.Join(cacheDir, key[:2], key+"-"+filepath.Base(j.path))
		none := out + ".unchanged"
		var content []byte
		if b, err := os.ReadFile(out); err == nil {
			content = b
			cachefile.MarkUsed(out, nil)
		} else if fi, err := os.Stat(none); err == nil {
			cachefile.MarkUsed(none, fi)
			continue
		} else {
			rewriteCount++
			b, changed, err := rewriteFile(cfg2.Fset, j.file, j.pkg.TypesInfo, j.pkg.Types, goVersion, racy, rewrittenPaths)
			if err != nil {
				return nil, err
			}
			if !changed {
				if err := writeAtomic(none, nil); err != nil {
					return nil, err
				}
				continue
			}
			if err := writeAtomic(out, b); err != nil {
				return nil, err
			}
			content = b
		}
		sum := sha256.Sum256(content)
		rewritten[j.pkg.PkgPath] = true
		m := j.pkg.Module
		if m != nil && !m.Main {
			dir, ok := modCopies[m.Path]
			if !ok {
				modVersions[m.Path] = noGoLine
				if m.GoVersion != "" {
					modVersions[m.Path] = "go" + m.GoVersion
				}
				modNoGo[m.Path] = m.GoVersion == ""
				dir, err = copyModule(cacheDir, m)
				if err != nil {
					return nil, err
				}
				modCopies[m.Path] = dir
				res.Replace[m.Path] = dir
			}
			rel, err := filepath.Rel(m.Dir, j.path)
			if err != nil || strings.HasPrefix(rel, "..") {
				return nil, fmt.Errorf("rewrite: %s is not inside module %s (%s)", j.path, m.Path, m.Dir)
			}
			dst := filepath.Join(dir, rel)
			if err := writeAtomic(dst, content); err != nil {
				return nil, err
			}
			res.Files[dst] = hex.EncodeToString(sum[:])
			continue
		}
		res.Overlay[j.path] = out
		res.Files[j.path] = hex.EncodeToString(sum[:])
	}
	for _, rs := range racyBy {
		res.RacyMissed = append(res.RacyMissed, rs...) // not in a rewritten file
	}
	for p := range rewritten {
		res.Packages = append(res.Packages, p)
	}
	sort.Strings(res.Packages)
	if opts.Verbose != nil {
		var all []string
		for p := range reasons {
			all = append(all, p)
		}
		sort.Strings(all)
		for _, p := range all {
			if rewritten[p] {
				vlog("heddle: rewrite %s: %s", p, reasons[p])
			} else {
				vlog("heddle: unchanged %s: %s, nothing to rewrite", p, reasons[p])
			}
		}
	}
	if opts.Verbose != nil || opts.Notes != nil {
		note := func(format string, args ...any) {
			vlog(format, args...)
			if opts.Notes != nil && opts.Notes != opts.Verbose {
				fmt.Fprintf(opts.Notes, format+"\n", args...)
			}
		}
		var mods []string
		for m := range res.Replace {
			mods = append(mods, m)
		}
		sort.Strings(mods)
		for _, m := range mods {
			note("heddle: module %s copied and rewritten at %s", m, res.Replace[m])
			if v := modVersions[m]; !versionAtLeast(v, 18) {
				what := "declares " + strings.Replace(v, "go", "go ", 1)
				if modNoGo[m] {
					what = "has no go line (go 1.16)"
				}
				note("heddle: module %s %s: its rewritten files are compiled as %s, which keeps its loop-variable semantics", m, what, upgradedLang)
			}
		}
	}
	return res, nil
}

// isHeddle reports whether p is part of heddle's runtime, which rewritten
// code calls and which must never be rewritten itself: heddle.dev/rt, the
// internal packages it is built from (the ones bundle.go embeds), and the
// root package that embeds them. The rest of the heddle.dev module (the
// command, the rewriter, the build) is ordinary code that heddle can
// explore, and separate modules under the heddle.dev path, such as
// heddle.dev/examples, are user code.
func isHeddle(p *packages.Package) bool {
	if p.Module != nil && p.Module.Path != "heddle.dev" {
		return false
	}
	// An external test package (pkg_test) goes with its package: the
	// runtime's own tests drive the engine directly.
	switch strings.TrimSuffix(p.PkgPath, "_test") {
	case "heddle.dev", rtPath,
		"heddle.dev/internal/engine", "heddle.dev/internal/strategy", "heddle.dev/internal/explore",
		"heddle.dev/internal/schedule", "heddle.dev/internal/event":
		return true
	}
	return strings.HasPrefix(p.PkgPath, rtPath+"/")
}

func isTestMain(p *packages.Package) bool {
	return strings.HasSuffix(p.ID, ".test") && p.Name == "main"
}

// noMatch reports patterns that matched no package.
func noMatch(roots []*packages.Package, patterns []string, dir string) error {
	if len(roots) == 0 {
		return fmt.Errorf("no packages match %q", strings.Join(patterns, " "))
	}
	for _, p := range roots {
		if len(p.GoFiles) > 0 || len(p.CompiledGoFiles) > 0 {
			continue
		}
		for _, e := range p.Errors {
			msg := e.Msg
			if strings.Contains(msg, "no Go files") || strings.Contains(msg, "cannot find") ||
				strings.Contains(msg, "directory not found") || strings.Contains(msg, "matched no packages") ||
				strings.Contains(msg, "no required module provides") || strings.Contains(msg, "is not in std") ||
				strings.Contains(msg, "build constraints exclude all Go files") || strings.Contains(msg, "does not contain package") {
				return fmt.Errorf("no packages match %q", patternFor(p, patterns, dir))
			}
		}
	}
	return nil
}

func patternFor(p *packages.Package, patterns []string, dir string) string {
	if len(patterns) == 1 {
		return patterns[0]
	}
	for _, pat := range patterns {
		if pat == p.PkgPath || pat == p.ID {
			return pat
		}
		clean := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(pat)), "./")
		if clean != "." && clean != "" && strings.HasSuffix(p.PkgPath, "/"+clean) {
			return pat
		}
	}
	return p.PkgPath
}

// loadErrors returns the errors of the loaded packages, one per line, with
// their original positions.
func loadErrors(pkgs []*packages.Package) error {
	// The go command's own report of a failed compile duplicates the type
	// checker's errors (with relative paths): prefer the latter.
	var typed, listed []string
	seen := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			s := e.Error()
			if seen[s] {
				continue
			}
			seen[s] = true
			if e.Kind == packages.ListError {
				listed = append(listed, s)
			} else {
				typed = append(typed, s)
			}
		}
	})
	if len(typed) > 0 {
		return errors.New(strings.Join(typed, "\n"))
	}
	if len(listed) > 0 {
		return errors.New(strings.Join(listed, "\n"))
	}
	return nil
}

// waitsOrInspects are the functions that make a dependency's package
// rewritten though it uses no channel, goroutine or sync: they wait on
// heddle's virtual clock or let the scheduler run others (a real sleep in
// a run would stall it), or read the goroutines heddle runs (goleak reads
// every stack with runtime.Stack, and would see heddle's own).
var waitsOrInspects = map[string]bool{
	"time.Sleep": true, "time.After": true, "time.Tick": true, "time.NewTimer": true,
	"time.NewTicker": true, "time.AfterFunc": true,
	"runtime.Stack": true, "runtime.Caller": true, "runtime.Callers": true, "runtime.ReadMemStats": true, "runtime/debug.Stack": true, "runtime/debug.PrintStack": true, "runtime.Gosched": true, "runtime.NumGoroutine": true, "runtime.Goexit": true,
	"runtime/pprof.Lookup": true, // the goroutine profile (rt.PprofWriteTo)
	// The names of a test's body's functions (rt.FuncName, rt.FramesNext).
	"runtime.FuncForPC": true, "runtime.CallersFrames": true,
	// A seed from the runtime's randomness, which would differ from run to
	// run of one schedule (rt.MaphashMakeSeed).
	"hash/maphash.MakeSeed": true,
}

// pipeNames are the names of package io replaced by heddle's model of
// io.Pipe (replacedTypes, rt/iopipe.go).
var pipeNames = map[string]bool{"Pipe": true, "PipeReader": true, "PipeWriter": true}

// usesConcurrency scans a dependency's files (syntax only) and says why
// it must be rewritten, or "" if it need not.
func usesConcurrency(p *packages.Package) string {
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		mode := parser.SkipObjectResolution
		if bytes.Contains(src, []byte("//go:linkname")) {
			mode |= parser.ParseComments
		}
		f, err := parser.ParseFile(fset, name, src, mode)
		if err != nil {
			continue
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if t := clockLinkTarget(c.Text, ""); t != "" {
					// It reads the real clock, beside the virtual one,
					// or draws numbers no schedule decides
					// (planClockLink).
					return "links " + t + " (" + fset.Position(c.Pos()).String() + ")"
				}
			}
		}
		names := map[string]string{} // local name -> "time", "runtime", "runtime/debug", "io" or "hash/maphash"
		for _, imp := range f.Imports {
			switch imp.Path.Value {
			case `"sync"`, `"sync/atomic"`:
				return "imports " + imp.Path.Value
			case `"time"`, `"runtime"`, `"runtime/debug"`, `"io"`, `"hash/maphash"`:
				path, _ := strconv.Unquote(imp.Path.Value)
				name := path[strings.LastIndexByte(path, '/')+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = path
			}
		}
		why := ""
		ast.Inspect(f, func(n ast.Node) bool {
			if why != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// io.Pipe and its types are replaced by heddle's model:
				// a package naming them must be rewritten to agree with
				// the packages that use its pipes.
				if id, ok := n.X.(*ast.Ident); ok && names[id.Name] == "io" && pipeNames[n.Sel.Name] {
					why = "uses io." + n.Sel.Name + " (" + fset.Position(n.Pos()).String() + ")"
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				if id, ok := sel.X.(*ast.Ident); ok && waitsOrInspects[names[id.Name]+"."+sel.Sel.Name] {
					why = "calls " + names[id.Name] + "." + sel.Sel.Name + " (" + fset.Position(n.Pos()).String() + ")"
				}
			case *ast.GoStmt:
				why = "starts goroutines (" + fset.Position(n.Pos()).String() + ")"
			case *ast.SelectStmt, *ast.SendStmt, *ast.ChanType:
				why = "uses channels (" + fset.Position(n.Pos()).String() + ")"
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					why = "uses channels (" + fset.Position(n.Pos()).String() + ")"
				}
			}
			return true
		})
		if why != "" {
			return why
		}
	}
	return ""
}

// packageKey hashes what a file's rewrite depends on besides the file
// itself: the package's other files and the files of its direct imports
// (which decide the types the rewrite looks at).
func packageKey(p *packages.Package) string {
	h := sha256.New()
	add := func(files []string) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				b = []byte(err.Error())
			}
			fmt.Fprintf(h, "%s %d\n", f, len(b))
			h.Write(b)
		}
	}
	add(p.CompiledGoFiles)
	var imps []string
	for path := range p.Imports {
		imps = append(imps, path)
	}
	sort.Strings(imps)
	for _, path := range imps {
		q := p.Imports[path]
		fmt.Fprintf(h, "import %s %s\n", path, q.ID)
		if q.Module != nil {
			add(q.CompiledGoFiles)
			add(q.GoFiles)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func hashStrings(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// copyModule copies a dependency module into the cache, writable, so that
// its rewritten files can replace the originals. The copy of a module
// version is made once; rewritten files are written over it afterwards.
func copyModule(cacheDir string, m *packages.Module) (string, error) {
	if m.Dir == "" {
		return "", fmt.Errorf("rewrite: module %s has no directory", m.Path)
	}
	key := hashStrings(Version, m.Path, m.Version, m.Dir)
	dst := filepath.Join(cacheDir, "mod", sanitize(m.Path)+"@"+sanitize(m.Version)+"-"+key[:16])
	if fi, err := os.Stat(filepath.Join(dst, ".heddle-copied")); err == nil {
		cachefile.MarkUsed(filepath.Join(dst, ".heddle-copied"), fi)
		return dst, ensureGoMod(dst, m.Path)
	}
	tmp, err := os.MkdirTemp(filepath.Join(cacheDir), ".modcopy-*")
	if err != nil {
		return "", err
	}
	err = filepath.WalkDir(m.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.Dir, path)
		target := filepath.Join(tmp, rel)
		if d.IsDir() {
			if rel != "." && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err == nil {
		err = ensureGoMod(tmp, m.Path)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, ".heddle-copied"), nil, 0o644)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(dst, ".heddle-copied")); serr == nil {
			return dst, nil // another process made it first
		}
		return "", err
	}
	return dst, nil
}

// ensureGoMod gives the copy at dir of the module path a go.mod if it has
// none: a module from before modules (VictoriaMetrics/fastcache's tests
// import allegro/bigcache at such a version) has none in the module cache,
// and the go command refuses a replacement directory without one ("reading
// .../go.mod: no such file or directory"). The go.mod has no go line and
// no requirements, as the go command assumes for such a module: go 1.16,
// and the main module's requirements.
func ensureGoMod(dir, path string) error {
	gomod := filepath.Join(dir, "go.mod")
	if _, err := os.Stat(gomod); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return writeAtomic(gomod, []byte("module "+strconv.Quote(path)+"\n"))
}

// noGoLine is the language version the go command assumes for a module
// whose go.mod has no go line.
const noGoLine = "go1.16"

// versionAtLeast reports whether the language version v ("go1.21") is at
// least go1.minor. An empty or unparsable version counts as recent.
func versionAtLeast(v string, minor int) bool {
	r := rewriter{goVersion: v}
	return r.versionAtLeast(minor)
}
