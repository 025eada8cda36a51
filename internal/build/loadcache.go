package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"heddle.dev/internal/cachefile"
	"heddle.dev/internal/rewrite"
)

// The load cache. Load runs some eight go commands (go env, go list, and
// go/packages' loads with types) and the rewriter before anything is
// built: some 0.15 s of wall time and 0.2 s of processor time for a small
// package, more for a large one, paid by every heddle command, and by
// every -parallel exploration before its workers start. When nothing Load
// read has changed since the last Load with the same options, its result
// is the same: Load then reads it from cacheDir/load instead.
//
// What is checked, and any change makes Load load again:
//   - the key: heddle (the executable's path, size and modification time,
//     the runtime's hash, the rewriter's version), the go command (its
//     path, size and modification time), the go env file, the environment
//     variables GO*, CGO_*, CC, CXX, HOME and XDG_CONFIG_HOME, and the
//     options (directory, patterns, -race, -tags, heddle run, -racy's
//     statements);
//   - the inputs: the content of every source file (.go, and cgo's C,
//     C++, assembler and the like), and the list of names,
//     of every directory of a package the test binaries are built from
//     outside the module cache (whose directories never change) and of
//     every directory under a pattern's "..."; go.mod and go.sum; the
//     go.mod of every local module; that no go.mod or go.work appeared
//     between the directory and the module's root;
//   - the files of heddle's cache the build reads (the rewritten files,
//     the rewritten copies of modules, the runtime) still exist.
//
// Not cached: workspaces and vendor directories, a package that does not
// compile, heddle's own module, patterns that are not directories or
// import paths of the main module. HEDDLE_LOADCACHE=off turns the cache
// off. The go command still checks, and caches, the build itself.

// loadCacheVersion changes whenever the entry's format or meaning does.
const loadCacheVersion = "heddle-load-1"

// loadCacheHits counts the Loads read from the cache; tests use it.
var loadCacheHits int

// loadEntry is one cached Load.
type loadEntry struct {
	Key         string
	Module      Module
	Packages    []cachedPackage
	RuntimeHash string
	BuildFlags  []string
	RacyMissed  []rewrite.RacyStmt
	RacyAdded   []rewrite.RacyStmt
	ModCache    string
	Files       map[string]string
	FileDirs    map[string]string
	Modfile     []byte // heddle.mod, heddle.sum and overlay.json as Load left them
	Modsum      []byte
	Overlay     []byte
	Exist       []string    // files of heddle's cache the build reads
	Inputs      []loadInput // what Load read
	Notes       string      // what Load wrote to Options.Notes and Stderr
	Stderr      string
}

type cachedPackage struct {
	ImportPath, Name, Dir string
	HasTests              bool
	Files                 map[string]string
	Fingerprint           string
	DepDirs               map[string]bool
	SrcFiles, TestFiles   []string
	TestOnly              []string `json:",omitempty"`
}

// loadInput is a file (its content's hash, "" when it must not exist) or
// a directory (the hash of its sorted names).
type loadInput struct {
	Path string
	Dir  bool `json:",omitempty"`
	Hash string
}

func loadCacheOff(env []string) bool {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HEDDLE_LOADCACHE="); ok && v == "off" {
			return true
		}
	}
	return os.Getenv("HEDDLE_LOADCACHE") == "off"
}

// loadSlot is the entry's file: one per directory and options, so that a
// new heddle or go replaces the entry the old one made.
func loadSlot(opts Options) (string, error) {
	racy, err := json.Marshal(opts.Racy)
	if err != nil {
		return "", err
	}
	s := hashStrings("slot", opts.Dir, strings.Join(opts.Patterns, "\x00"), fmt.Sprint(opts.Race, opts.Debug, opts.Main), opts.Tags, string(racy))
	return filepath.Join(opts.CacheDir, "load", s[:24]+".json"), nil
}

// loadKey hashes what Load's result depends on besides the files it reads.
func loadKey(opts Options) (string, error) {
	racy, err := json.Marshal(opts.Racy)
	if err != nil {
		return "", err
	}
	parts := []string{loadCacheVersion, rewrite.Version, opts.CacheDir, opts.Dir, strings.Join(opts.Patterns, "\x00"),
		fmt.Sprint(opts.Race, opts.Debug, opts.Main), opts.Tags, string(racy)}
	rh, err := RuntimeHash(opts.Runtime)
	if err != nil {
		return "", err
	}
	parts = append(parts, rh)
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	parts = append(parts, exe, statID(exe))
	goPath, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	parts = append(parts, goPath, statID(goPath))
	if r, err := filepath.EvalSymlinks(goPath); err == nil {
		parts = append(parts, r, statID(r))
	}
	var env []string
	goenv := ""
	for _, kv := range opts.Env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GO") || strings.HasPrefix(k, "CGO_") || k == "CC" || k == "CXX" || k == "HOME" || k == "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
		if k == "GOENV" {
			goenv = v
		}
	}
	sort.Strings(env)
	parts = append(parts, env...)
	if goenv == "" {
		if d, err := os.UserConfigDir(); err == nil {
			goenv = filepath.Join(d, "go", "env")
		}
	}
	if goenv != "" && goenv != "off" {
		b, _ := os.ReadFile(goenv)
		parts = append(parts, "goenv", string(b))
	}
	return hashStrings(parts...), nil
}

func statID(name string) string {
	fi, err := os.Stat(name)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

// hashStrings is the sha256 of the strings, each with its length.
func hashStrings(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// check reports whether the input is as it was.
func (in loadInput) check() bool {
	if in.Dir {
		h, err := dirHash(in.Path)
		return err == nil && h == in.Hash
	}
	b, err := os.ReadFile(in.Path)
	if err != nil {
		return in.Hash == "" && os.IsNotExist(err)
	}
	sum := sha256.Sum256(b)
	return in.Hash != "" && hex.EncodeToString(sum[:]) == in.Hash
}

func dirHash(dir string) (string, error) {
	names, err := dirNames(dir)
	if err != nil {
		return "", err
	}
	return hashStrings(names...), nil
}

// dirNames are the entries of dir, sorted, a directory's name ending
// with a slash.
func dirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	return names, nil
}

// cachedLoad returns the cached result of Load(opts) when it is still
// true, and nil otherwise. opts is normalized (absolute Dir, Env, Runtime).
func cachedLoad(opts Options) (*Program, string) {
	if loadCacheOff(opts.Env) || opts.CacheDir == "" {
		return nil, ""
	}
	slot, err := loadSlot(opts)
	if err != nil {
		return nil, ""
	}
	key, err := loadKey(opts)
	if err != nil {
		return nil, ""
	}
	b, err := os.ReadFile(slot)
	if err != nil {
		return nil, key
	}
	var e loadEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key {
		return nil, key
	}
	for _, in := range e.Inputs {
		if !in.check() {
			return nil, key
		}
	}
	for _, f := range e.Exist {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, key
		}
		cachefile.MarkUsed(f, fi)
	}
	cachefile.MarkUsed(slot, nil)
	m := e.Module
	p := &Program{Module: &m, RuntimeHash: e.RuntimeHash, BuildFlags: e.BuildFlags, RacyMissed: e.RacyMissed, RacyAdded: e.RacyAdded,
		opts: opts, modCache: e.ModCache, files: e.Files, fileDirs: e.FileDirs}
	work := filepath.Join(opts.CacheDir, "build", shortHash(m.Root))
	p.modfile = filepath.Join(work, "heddle.mod")
	p.overlay = filepath.Join(work, "overlay.json")
	p.binDir = filepath.Join(work, "bin")
	p.env = goEnv(opts.Env, p.modfile)
	// Other options of the same module share these files: write them back.
	if os.MkdirAll(work, 0o777) != nil ||
		writeFileAtomic(p.modfile, e.Modfile) != nil ||
		writeFileAtomic(strings.TrimSuffix(p.modfile, ".mod")+".sum", e.Modsum) != nil ||
		writeFileAtomic(p.overlay, e.Overlay) != nil {
		return nil, key
	}
	for _, c := range e.Packages {
		p.Packages = append(p.Packages, &Package{ImportPath: c.ImportPath, Name: c.Name, Dir: c.Dir, HasTests: c.HasTests,
			Files: c.Files, Fingerprint: c.Fingerprint, TestOnly: c.TestOnly, depDirs: c.DepDirs, srcFiles: c.SrcFiles, testFiles: c.TestFiles})
	}
	loadCacheHits++
	p.note("loaded from heddle's load cache %s: no input changed", slot)
	if opts.Notes != nil && e.Notes != "" {
		io.WriteString(opts.Notes, e.Notes)
	}
	if e.Stderr != "" {
		io.WriteString(opts.Stderr, e.Stderr)
	}
	return p, key
}

// cacheable reports whether p's Load may be cached (see above), and the
// directories under its patterns' "...".
func (p *Program) cacheable() (trees []string, ok bool) {
	if p.Module.Path == SelfPath || len(p.Module.Workspace) > 0 {
		return nil, false
	}
	for _, pkg := range p.Packages {
		if pkg.BuildErr != "" {
			return nil, false
		}
	}
	for _, pat := range p.opts.Patterns {
		base, tree := strings.CutSuffix(pat, "/...")
		if pat == "..." || strings.Contains(base, "...") {
			return nil, false
		}
		var dir string
		switch {
		case filepath.IsAbs(base):
			dir = base
		case base == "." || base == ".." || strings.HasPrefix(base, "./") || strings.HasPrefix(base, "../"):
			dir = filepath.Join(p.opts.Dir, base)
		case base == p.Module.Path:
			dir = p.Module.Root
		case strings.HasPrefix(base, p.Module.Path+"/"):
			dir = filepath.Join(p.Module.Root, strings.TrimPrefix(base, p.Module.Path+"/"))
		default:
			return nil, false
		}
		if tree {
			trees = append(trees, dir)
		}
	}
	return trees, true
}

// saveLoad writes p's entry. started is when Load began: an input changed
// since then may not be what Load read, and p is not saved.
func (p *Program) saveLoad(key string, started time.Time, runtimeDir, notes, stderr string) error {
	trees, ok := p.cacheable()
	if !ok || key == "" {
		return nil
	}
	slot, err := loadSlot(p.opts)
	if err != nil {
		return err
	}
	e := loadEntry{Key: key, Module: *p.Module, RuntimeHash: p.RuntimeHash, BuildFlags: p.BuildFlags, RacyMissed: p.RacyMissed,
		RacyAdded: p.RacyAdded, ModCache: p.modCache, Files: p.files, FileDirs: p.fileDirs, Notes: notes, Stderr: stderr}
	for _, pkg := range p.Packages {
		e.Packages = append(e.Packages, cachedPackage{pkg.ImportPath, pkg.Name, pkg.Dir, pkg.HasTests, pkg.Files, pkg.Fingerprint, pkg.depDirs, pkg.srcFiles, pkg.testFiles, pkg.TestOnly})
	}
	if e.Modfile, err = os.ReadFile(p.modfile); err != nil {
		return err
	}
	if e.Modsum, err = os.ReadFile(strings.TrimSuffix(p.modfile, ".mod") + ".sum"); err != nil && !os.IsNotExist(err) {
		return err
	}
	if e.Overlay, err = os.ReadFile(p.overlay); err != nil {
		return err
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(e.Overlay, &ov); err != nil {
		return err
	}
	for _, f := range ov.Replace {
		if f != "" {
			e.Exist = append(e.Exist, f)
		}
	}
	for f := range p.files {
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(p.fileDirs[f], filepath.Base(f))
		}
		e.Exist = append(e.Exist, abs)
	}
	if runtimeDir != "" {
		e.Exist = append(e.Exist, filepath.Join(runtimeDir, ".complete"))
	}
	sort.Strings(e.Exist)

	// The inputs.
	dirs := map[string]bool{p.Module.Root: true}
	for d := range p.inputDirs {
		dirs[d] = true
	}
	files := map[string]bool{p.Module.GoMod: true, filepath.Join(p.Module.Root, "go.sum"): true, filepath.Join(p.Module.Root, "vendor", "modules.txt"): true}
	for gm := range p.inputMods {
		files[gm] = true
	}
	for _, t := range trees {
		err := filepath.WalkDir(t, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if path != t {
				if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					files[filepath.Join(path, "go.mod")] = true // another module
					return filepath.SkipDir
				}
			}
			dirs[path] = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	// No go.mod between the directory and the module root, no go.work
	// above the directory (the go command would see them).
	for d := p.opts.Dir; ; d = filepath.Dir(d) {
		if d != p.Module.Root && strings.HasPrefix(d, p.Module.Root+string(filepath.Separator)) {
			files[filepath.Join(d, "go.mod")] = true
		}
		files[filepath.Join(d, "go.work")] = true
		if filepath.Dir(d) == d {
			break
		}
	}
	for d := range dirs {
		names, err := dirNames(d)
		if err != nil {
			return err
		}
		e.Inputs = append(e.Inputs, loadInput{Path: d, Dir: true, Hash: hashStrings(names...)})
		for _, n := range names {
			if sourceFile(n) {
				files[filepath.Join(d, n)] = true
			}
		}
	}
	for f := range files {
		in := loadInput{Path: f}
		fi, err := os.Stat(f)
		switch {
		case err == nil && fi.ModTime().After(started.Add(-50*time.Millisecond)):
			return nil // changed while Load read it, or just before: not saved
		case err == nil:
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			in.Hash = hex.EncodeToString(sum[:])
		case !os.IsNotExist(err):
			return err
		}
		e.Inputs = append(e.Inputs, in)
	}
	for i := range e.Inputs {
		if e.Inputs[i].Dir {
			if fi, err := os.Stat(e.Inputs[i].Path); err != nil || fi.ModTime().After(started.Add(-50*time.Millisecond)) {
				return nil
			}
		}
	}
	sort.Slice(e.Inputs, func(i, j int) bool { return e.Inputs[i].Path < e.Inputs[j].Path })
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(slot), 0o777); err != nil {
		return err
	}
	return writeFileAtomic(slot, b)
}

// sourceFile reports whether a file of that name is a source file the go
// command reads in a package's directory: Go, and the C, C++, assembler
// and other files of cgo (their headers can change the types cgo gives
// the Go files).
func sourceFile(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".c", ".h", ".s", ".S", ".sx", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".syso":
		return true
	}
	return false
}

// capture keeps what is written to it, and writes it on to w (if any).
type capture struct {
	w   io.Writer
	buf bytes.Buffer
}

func (c *capture) Write(b []byte) (int, error) {
	c.buf.Write(b)
	if c.w != nil {
		return c.w.Write(b)
	}
	return len(b), nil
}
