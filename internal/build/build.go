// Package build prepares rewritten test binaries for the heddle command.
//
// For the packages a user names, it finds the main module, writes a
// tool-owned copy of its go.mod that reaches heddle's runtime (extracted
// from the heddle binary into a cache directory), has the rewriter produce
// an overlay, and builds one test binary per package with
// `go test -c -overlay`. Nothing in the user's tree is written: the go
// command is always run with -modfile pointing into heddle's cache, and with
// GOWORK=off.
package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"heddle.dev"
	"heddle.dev/internal/cachefile"
	"heddle.dev/internal/rewrite"
)

// Options says what to build.
type Options struct {
	Dir      string   // working directory; patterns are relative to it
	Patterns []string // package patterns, as for go test; none means "."
	Race     bool     // build with -race
	Tags     string   // build tags, comma-separated
	Debug    bool     // build for a debugger: -gcflags=all=-N -l
	// Main builds, instead of a package's tests, one test that calls the
	// main function of the one main package the patterns name (heddle
	// run); see main.go.
	Main     bool
	Env      []string // environment of the go command; nil means os.Environ()
	CacheDir string   // heddle's cache root (see CacheDir)

	// Runtime holds the runtime sources; nil means heddle.Runtime.
	Runtime fs.FS

	Stderr  io.Writer // go command diagnostics; nil discards them
	Verbose io.Writer // progress notes (-x style); nil for none
	Notes   io.Writer // notes for -v (modules copied and rewritten); nil for none

	// Racy are statements a race-detector phase saw racing, which the
	// rewriter makes scheduling points (heddle test -racy). They are
	// recorded in BuildFlags as -racy=..., so that replay rebuilds the
	// same program.
	Racy []rewrite.RacyStmt
}

// Program is the rewritten form of the packages under test.
type Program struct {
	Module      *Module
	Packages    []*Package // matched packages, in go list order
	RuntimeHash string
	BuildFlags  []string // -race, -tags=... as recorded in schedules
	// RacyMissed are the statements of Options.Racy that got no
	// scheduling point.
	RacyMissed []rewrite.RacyStmt
	// RacyAdded are the statements given scheduling points because they
	// access a variable a statement of Options.Racy accesses.
	RacyAdded []rewrite.RacyStmt

	opts     Options
	env      []string
	modfile  string
	overlay  string
	binDir   string
	modCache string
	files    map[string]string // rel name -> rewritten hash, every package
	fileDirs map[string]string // rel name -> original directory

	inputDirs map[string]bool // directories of the listed packages outside the module cache (loadcache.go)
	inputMods map[string]bool // go.mod files of the modules outside the module cache
}

// Package is one package under test.
type Package struct {
	ImportPath string
	Name       string // the package name: main for a command
	Dir        string
	HasTests   bool

	// Files maps the names of the files this package's test binary is built
	// from to their hashes: the rewritten files (hash of the rewritten
	// content), the main module's files that needed no rewriting, and
	// go.mod. Names are relative to the module root (see RelName).
	Files       map[string]string
	Fingerprint string

	// BuildErr is the go command's message when the package (or its
	// tests, or a package they import) does not compile: it is not
	// rewritten, and Build returns it, as go test reports such a package
	// and tests the others.
	BuildErr string

	// TestOnly are the import paths of the packages its test binary
	// imports only for its tests: those its test files import, directly
	// or not, that neither it nor the packages it imports do (testify, a
	// mock clock, a helper package of the module), the standard library
	// left out. Their timers are the tests' (explore.Config.TestOnly).
	TestOnly []string

	depDirs   map[string]bool // directories of everything its test binary is built from
	srcFiles  []string        // its files and those of its main-module dependencies
	testFiles []string        // its _test.go files, absolute
}

// Error is a failure the user must fix (a compile error, a bad pattern),
// as opposed to a failure of heddle itself. Its text is ready to print.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// CacheDir is heddle's cache root: $HEDDLE_CACHE, or os.UserCacheDir()/heddle.
func CacheDir() (string, error) {
	if d := os.Getenv("HEDDLE_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("heddle: no cache directory (set HEDDLE_CACHE): %v", err)
	}
	return filepath.Join(d, "heddle"), nil
}

// Flags returns the build flags as recorded in schedules and fingerprints.
func Flags(race bool, tags string) []string {
	var f []string
	if race {
		f = append(f, "-race")
	}
	if tags != "" {
		f = append(f, "-tags="+tags)
	}
	return f
}

// ParseFlags is the inverse of Flags, for a schedule's recorded flags.
func ParseFlags(flags []string) (race bool, tags string, err error) {
	for _, f := range flags {
		switch {
		case f == "-race":
			race = true
		case strings.HasPrefix(f, "-tags="):
			tags = strings.TrimPrefix(f, "-tags=")
		case strings.HasPrefix(f, racyFlag):
			// ParseRacy's.
		default:
			return false, "", fmt.Errorf("unknown build flag %q", f)
		}
	}
	return race, tags, nil
}

const racyFlag = "-racy="

// ParseRacy returns the racy statements recorded in a schedule's flags.
func ParseRacy(flags []string) ([]rewrite.RacyStmt, error) {
	for _, f := range flags {
		if s, ok := strings.CutPrefix(f, racyFlag); ok {
			var stmts []rewrite.RacyStmt
			if err := json.Unmarshal([]byte(s), &stmts); err != nil {
				return nil, fmt.Errorf("bad build flag -racy: %v", err)
			}
			return stmts, nil
		}
	}
	return nil, nil
}

// Load finds the module, extracts the runtime, lists and rewrites the
// packages, and computes each package's fingerprint. It builds nothing.
func Load(opts Options) (*Program, error) {
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Runtime == nil {
		opts.Runtime = heddle.Runtime
	}
	if len(opts.Patterns) == 0 {
		opts.Patterns = []string{"."}
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = dir
	started := time.Now()
	if opts.CacheDir != "" {
		// Best effort: a cache that cannot be trimmed still works.
		removed, err := cachefile.Trim(opts.CacheDir, started)
		if opts.Verbose != nil && (len(removed) > 0 || err != nil) {
			fmt.Fprintf(opts.Verbose, "heddle: trimmed %d entries unused for %v from the cache %s (%v)\n", len(removed), cachefile.TrimAge, opts.CacheDir, err)
		}
	}
	cached, key := cachedLoad(opts)
	if cached != nil {
		return cached, nil
	}
	// What Load writes to Notes and Stderr, for the cache to repeat.
	userNotes := opts.Notes
	notes := &capture{w: opts.Notes}
	if opts.Notes != nil && opts.Notes == opts.Verbose {
		notes.w = nil // the rewriter writes its notes to Verbose already
	}
	opts.Notes = notes
	stderrCap := &capture{w: opts.Stderr}
	opts.Stderr = stderrCap
	mod, err := FindModule(dir, opts.Env)
	if err != nil {
		return nil, err
	}
	p := &Program{Module: mod, opts: opts, BuildFlags: Flags(opts.Race, opts.Tags)}
	if len(opts.Racy) > 0 {
		b, err := json.Marshal(opts.Racy)
		if err != nil {
			return nil, err
		}
		p.BuildFlags = append(p.BuildFlags, racyFlag+string(b))
	}
	if err := useVendor(mod, opts.Env, opts.CacheDir); err != nil {
		return nil, err
	}

	// The runtime: heddle's own tree when testing heddle, else the bundle.
	var runtimeDir string
	if mod.Path == SelfPath {
		p.RuntimeHash, err = RuntimeHash(os.DirFS(mod.Root))
	} else {
		runtimeDir, p.RuntimeHash, err = ExtractRuntime(opts.Runtime, opts.CacheDir)
	}
	if err != nil {
		return nil, err
	}

	work := filepath.Join(opts.CacheDir, "build", shortHash(mod.Root))
	p.modfile = filepath.Join(work, "heddle.mod")
	p.overlay = filepath.Join(work, "overlay.json")
	p.binDir = filepath.Join(work, "bin")
	p.env = goEnv(opts.Env, p.modfile)
	if err := writeToolModfile(mod, p.modfile, runtimeDir, nil, true); err != nil {
		return nil, err
	}
	cachefile.NoteRoot(work, mod.Root)
	p.note("module %s in %s; runtime %s; go.mod copy %s", mod.Path, mod.Root, runtimeOrSelf(runtimeDir), p.modfile)

	if p.modCache, err = p.goEnvVar("GOMODCACHE"); err != nil {
		return nil, err
	}
	if err := p.list(); err != nil {
		return nil, err
	}
	if opts.Main {
		if err := p.checkMain(); err != nil {
			return nil, err
		}
	}

	rewriteOpts := rewrite.Options{
		Dir:        dir,
		Patterns:   opts.Patterns,
		BuildFlags: p.goFlags(),
		Env:        p.env,
		CacheDir:   filepath.Join(opts.CacheDir, "rewrite"),
		Verbose:    opts.Verbose,
		Notes:      opts.Notes,
		NoTests:    opts.Main,
		Racy:       opts.Racy,
	}
	if len(p.buildable()) < len(p.Packages) {
		rewriteOpts.Patterns = p.buildable() // some do not parse
	}
	var res *rewrite.Result
	if len(rewriteOpts.Patterns) == 0 {
		return p, nil
	}
	res, err = rewrite.Rewrite(rewriteOpts)
	if err != nil {
		// Code that does not compile: let the go command say so, with the
		// original positions, for each package that does not, and
		// rewrite the others.
		if !p.compileOriginal() {
			return nil, fmt.Errorf("heddle: rewriting: %v", err)
		}
		if rewriteOpts.Patterns = p.buildable(); len(rewriteOpts.Patterns) == 0 {
			return p, nil
		}
		if res, err = rewrite.Rewrite(rewriteOpts); err != nil {
			return nil, fmt.Errorf("heddle: rewriting: %v", err)
		}
	}
	p.RacyMissed = res.RacyMissed
	p.RacyAdded = res.RacyAdded
	if err := writeToolModfile(mod, p.modfile, runtimeDir, res.Replace, false); err != nil {
		return nil, err
	}
	if opts.Main {
		// The generated test is not among the fingerprinted files: it is
		// a function of heddle and of main.go, whose hash is there, and
		// "heddle_main_test.go changed" would name a file the user never
		// saw.
		if err := p.addMainTest(res.Overlay, res.Files, work); err != nil {
			return nil, err
		}
	}
	if err := writeOverlay(p.overlay, res.Overlay); err != nil {
		return nil, err
	}
	p.note("rewrote %d packages, %d files; overlay %s", len(res.Packages), len(res.Overlay), p.overlay)

	p.files = map[string]string{}
	p.fileDirs = map[string]string{}
	for abs, h := range res.Files {
		n := RelName(mod.Root, p.modCache, abs)
		p.files[n] = h
		p.fileDirs[n] = filepath.Dir(abs)
	}
	gomodHash, err := hashFile(mod.GoMod)
	if err != nil {
		return nil, err
	}
	for _, pkg := range p.Packages {
		if pkg.BuildErr != "" {
			continue
		}
		// The rewritten files of every module it is built from, ...
		pkg.Files = map[string]string{}
		// (a dependency's _test.go files are rewritten when its own tests
		// are loaded too, but they are not part of this binary) ...
		for n, h := range p.files {
			d := p.fileDirs[n]
			if pkg.depDirs[d] && (d == pkg.Dir || !strings.HasSuffix(n, "_test.go")) {
				pkg.Files[n] = h
			}
		}
		// ... the main module's files that needed no rewriting, ...
		for _, f := range pkg.srcFiles {
			n := RelName(mod.Root, p.modCache, f)
			if _, ok := pkg.Files[n]; ok {
				continue
			}
			if pkg.Files[n], err = hashFile(f); err != nil {
				return nil, err
			}
		}
		// ... and go.mod, which fixes the versions of the other modules.
		pkg.Files["go.mod"] = gomodHash
		pkg.Fingerprint = Fingerprint(pkg.Files, p.RuntimeHash, p.BuildFlags)
	}
	if err := p.saveLoad(key, started, runtimeDir, notes.buf.String(), stderrCap.buf.String()); err != nil {
		p.note("not saved in the load cache: %v", err)
	}
	p.opts.Notes, p.opts.Stderr = userNotes, stderrCap.w
	return p, nil
}

func hashFile(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("heddle: %v", err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

func runtimeOrSelf(dir string) string {
	if dir == "" {
		return "of the main module"
	}
	return dir
}

func (p *Program) note(format string, args ...any) {
	if p.opts.Verbose != nil {
		fmt.Fprintf(p.opts.Verbose, "heddle: "+format+"\n", args...)
	}
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// goEnv is the environment of every go command heddle runs: GOWORK=off, so
// that a go.work in a parent directory is not picked up, and GOFLAGS that
// let the go command update heddle's go.mod copy, never the user's.
func goEnv(base []string, modfile string) []string {
	env := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if strings.HasPrefix(kv, "GOWORK=") || strings.HasPrefix(kv, "GOFLAGS=") {
			continue
		}
		env = append(env, kv)
	}
	flags := "-mod=mod"
	if !strings.ContainsAny(modfile, " \t") {
		// Also for go commands the rewriter runs itself.
		flags += " -modfile=" + modfile
	}
	return append(env, "GOWORK=off", "GOFLAGS="+flags)
}

// goFlags are the flags of every go command that loads packages.
func (p *Program) goFlags() []string {
	f := []string{"-modfile=" + p.modfile}
	if p.opts.Tags != "" {
		f = append(f, "-tags="+p.opts.Tags)
	}
	return f
}

func (p *Program) goCmd(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = p.opts.Dir
	cmd.Env = p.env
	if p.opts.Verbose != nil {
		fmt.Fprintf(p.opts.Verbose, "heddle: go %s\n", strings.Join(args, " "))
	}
	return cmd
}

func (p *Program) goEnvVar(name string) (string, error) {
	cmd := p.goCmd("env", name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("heddle: go env %s: %v\n%s", name, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// listed is the part of `go list -json` that heddle reads.
type listed struct {
	ImportPath   string
	Name         string
	Dir          string
	DepOnly      bool
	ForTest      string
	Standard     bool
	Deps         []string
	TestGoFiles  []string
	XTestGoFiles []string
	GoFiles      []string
	CgoFiles     []string
	Error        *struct{ Err string }
	Module       *struct{ GoMod string }
}

// list finds the packages matched by the patterns and, for each, the
// directories of everything its test binary is built from.
func (p *Program) list() error {
	args := []string{"list", "-e", "-test", "-deps"}
	if p.opts.Main {
		args = []string{"list", "-e", "-deps"} // heddle run: the program, not its tests
	}
	args = append(append(args,
		"-json=ImportPath,Name,Dir,DepOnly,ForTest,Standard,Deps,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Error,Module"), p.goFlags()...)
	args = append(args, "--")
	args = append(args, p.opts.Patterns...)
	cmd := p.goCmd(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return &Error{Msg: strings.TrimRight(stderr.String(), "\n")}
	}
	byPath := map[string]*listed{}
	var matched []*listed
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		l := new(listed)
		if err := dec.Decode(l); err != nil {
			return fmt.Errorf("heddle: reading go list output: %v", err)
		}
		byPath[l.ImportPath] = l
		p.addInput(l)
		if !l.DepOnly && l.ForTest == "" && !strings.Contains(l.ImportPath, " [") {
			matched = append(matched, l)
		}
	}
	var errs []string
	for _, l := range matched {
		if strings.HasSuffix(l.ImportPath, ".test") {
			if m := byPath[strings.TrimSuffix(l.ImportPath, ".test")]; m != nil && !m.DepOnly {
				continue // the generated test main of m
			}
		}
		if l.Error != nil {
			if l.Dir == "" || l.ImportPath == "" || p.opts.Main {
				errs = append(errs, strings.TrimRight(l.Error.Err, "\n"))
			} else {
				// A package that does not parse: go test reports it and
				// tests the others.
				msg := strings.TrimRight(l.Error.Err, "\n")
				if !strings.HasPrefix(msg, "# ") {
					msg = "# " + l.ImportPath + "\n" + msg
				}
				p.Packages = append(p.Packages, &Package{ImportPath: l.ImportPath, Name: l.Name, Dir: l.Dir, HasTests: true, BuildErr: msg})
			}
			continue
		}
		pkg := &Package{
			ImportPath: l.ImportPath,
			Name:       l.Name,
			Dir:        l.Dir,
			HasTests:   len(l.TestGoFiles)+len(l.XTestGoFiles) > 0,
			depDirs:    map[string]bool{l.Dir: true},
		}
		for _, n := range append(append([]string(nil), l.TestGoFiles...), l.XTestGoFiles...) {
			pkg.testFiles = append(pkg.testFiles, filepath.Join(l.Dir, n))
		}
		deps := l.Deps
		if tm := byPath[l.ImportPath+".test"]; tm != nil && !p.opts.Main {
			deps = tm.Deps
			pkg.TestOnly = testOnly(l, deps, byPath)
		}
		seen := map[string]bool{}
		addFiles := func(dir string, names ...[]string) {
			for _, ns := range names {
				for _, n := range ns {
					if f := filepath.Join(dir, n); !seen[f] {
						seen[f] = true
						pkg.srcFiles = append(pkg.srcFiles, f)
					}
				}
			}
		}
		if p.opts.Main {
			addFiles(l.Dir, l.GoFiles, l.CgoFiles) // its tests are left out
		} else {
			addFiles(l.Dir, l.GoFiles, l.CgoFiles, l.TestGoFiles, l.XTestGoFiles)
		}
		for _, d := range deps {
			if dl := byPath[d]; dl != nil && !dl.Standard {
				pkg.depDirs[dl.Dir] = true
				if _, ok := within(p.Module.Root, dl.Dir); ok {
					addFiles(dl.Dir, dl.GoFiles, dl.CgoFiles)
				}
			}
		}
		p.Packages = append(p.Packages, pkg)
	}
	// go list -deps prints dependencies first; print packages as go test
	// does for ./..., by import path.
	sort.SliceStable(p.Packages, func(i, j int) bool { return p.Packages[i].ImportPath < p.Packages[j].ImportPath })
	if s := strings.TrimSpace(stderr.String()); s != "" {
		fmt.Fprintln(p.opts.Stderr, s)
	}
	if len(errs) > 0 {
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	if len(p.Packages) == 0 {
		return &Error{Msg: fmt.Sprintf("heddle: no packages to test: %s matched no packages", strings.Join(p.opts.Patterns, " "))}
	}
	return nil
}

// testOnly returns the packages of testDeps (the dependencies of l's test
// binary) that l's tests import and l does not, directly or not: not l,
// not one of l.Deps, not a standard package, not the test main. A package
// that imports l is among them in a variant built for the test ("q
// [l.test]"); its plain import path is returned.
func testOnly(l *listed, testDeps []string, byPath map[string]*listed) []string {
	code := map[string]bool{l.ImportPath: true}
	for _, d := range l.Deps {
		code[d] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range testDeps {
		if dl := byPath[d]; dl == nil || dl.Standard {
			continue
		}
		path, _, _ := strings.Cut(d, " [")
		if code[path] || seen[path] || path == l.ImportPath+"_test" || path == l.ImportPath+".test" {
			continue
		}
		seen[path] = true
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// addInput records the directory and go.mod of a listed package outside
// the module cache, for the load cache.
func (p *Program) addInput(l *listed) {
	if l.Standard || l.Dir == "" {
		return
	}
	if _, ok := within(p.modCache, l.Dir); ok && p.modCache != "" {
		return
	}
	if p.inputDirs == nil {
		p.inputDirs, p.inputMods = map[string]bool{}, map[string]bool{}
	}
	p.inputDirs[l.Dir] = true
	if l.Module != nil && l.Module.GoMod != "" {
		_, cached := within(p.modCache, l.Module.GoMod)
		_, ours := within(p.opts.CacheDir, l.Module.GoMod) // the main module's: heddle.mod, -modfile's
		if (!cached || p.modCache == "") && !ours {
			p.inputMods[l.Module.GoMod] = true
		}
	}
}

// compileOriginal builds the tests of the packages as they are, without
// heddle, to report compile errors as the go command does: each package
// that does not compile gets the go command's message in BuildErr. It
// reports whether some package did not compile.
func (p *Program) compileOriginal() bool {
	tmp, err := os.MkdirTemp("", "heddle-check-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	broken := false
	for _, pkg := range p.Packages {
		if pkg.BuildErr != "" {
			continue
		}
		args := append([]string{"test", "-c", "-vet=off", "-o", filepath.Join(tmp, "x.test")}, p.goFlags()...)
		if p.opts.Main {
			// heddle run builds the program, not its tests.
			args = append([]string{"build", "-o", filepath.Join(tmp, "x")}, p.goFlags()...)
		}
		if p.opts.Race {
			args = append(args, "-race")
		}
		cmd := p.goCmd(append(args, pkg.ImportPath)...)
		cmd.Dir = pkg.Dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			pkg.BuildErr = strings.TrimRight(string(out), "\n")
			broken = true
		}
	}
	return broken
}

// buildable returns the import paths of the packages that compile, as far
// as is known.
func (p *Program) buildable() []string {
	var ps []string
	for _, pkg := range p.Packages {
		if pkg.BuildErr == "" {
			ps = append(ps, pkg.ImportPath)
		}
	}
	return ps
}

func writeOverlay(path string, replace map[string]string) error {
	b, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// Build builds the test binary of pkg, which must have tests, and returns
// its path. The go command relinks only when an input changed. Compile
// errors are returned as an *Error holding the go command's output, with
// the original file positions.
func (p *Program) Build(pkg *Package) (string, error) {
	if pkg.BuildErr != "" {
		return "", &Error{Msg: pkg.BuildErr}
	}
	key := pkg.ImportPath + "\x00" + strings.Join(p.BuildFlags, " ")
	if p.opts.Debug {
		key += "\x00debug"
	}
	if p.opts.Main {
		key += "\x00main"
	}
	bin := filepath.Join(p.binDir, shortHash(key), testBinaryName(pkg.ImportPath))
	args := []string{"test", "-c", "-o", bin, "-vet=off", "-overlay=" + p.overlay}
	args = append(args, p.goFlags()...)
	if p.opts.Race {
		args = append(args, "-race")
	}
	if p.opts.Debug {
		args = append(args, "-gcflags=all=-N -l")
	}
	cmd := p.goCmd(append(args, pkg.ImportPath)...)
	cmd.Dir = pkg.Dir // so that the go command prints positions relative to it
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", &Error{Msg: strings.TrimRight(string(out), "\n")}
		}
		return "", fmt.Errorf("heddle: go test -c: %v", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("heddle: go test -c wrote no test binary for %s:\n%s", pkg.ImportPath, out)
	}
	return bin, nil
}

func testBinaryName(importPath string) string {
	name := importPath[strings.LastIndex(importPath, "/")+1:]
	if name == "" {
		name = "pkg"
	}
	return name + ".test"
}

// AllFiles returns the rewritten files of every package, by name relative
// to the module root, sorted. It is for diagnostics.
func (p *Program) AllFiles() []string {
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeFileAtomic writes data to path through a temporary file renamed into
// place: heddle processes that share the build cache (the shards of one
// exploration, started at once by Slurm) never read a file half written.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o666); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
