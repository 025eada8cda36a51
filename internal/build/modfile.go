package build

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Module is the user's main module.
type Module struct {
	Root  string // directory holding go.mod
	Path  string // module path
	GoMod string // path of go.mod

	// Workspace maps the other modules of the user's go.work workspace,
	// and its local replacements, to their directories (see
	// findWorkspace); WorkSums are the workspace's go.sum files.
	Workspace map[string]string
	WorkSums  [][]byte
}

// SelfPath is heddle's own module path. When heddle tests its own packages
// the runtime is the main module's, and no require or replace is added.
const SelfPath = "heddle.dev"

// FindModule finds the main module of dir with `go env GOMOD`, with
// GOWORK=off so that a stray go.work does not change the answer.
func FindModule(dir string, env []string) (*Module, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("heddle: go env GOMOD: %v\n%s", err, stderr.String())
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return nil, fmt.Errorf("heddle: no go.mod found in %s or any parent; heddle tests packages of a Go module (run `go mod init`)", dir)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, fmt.Errorf("heddle: %v", err)
	}
	mpath := modfile.ModulePath(data)
	if mpath == "" {
		return nil, fmt.Errorf("heddle: %s has no module line", gomod)
	}
	m := &Module{Root: filepath.Dir(gomod), Path: mpath, GoMod: gomod}
	if err := findWorkspace(m, dir, env); err != nil {
		return nil, err
	}
	return m, nil
}

// ToolModfile returns the content of heddle's own copy of the user's go.mod:
// the same file, plus a requirement on heddle.dev replaced by the extracted
// runtime in runtimeDir (unless the main module is heddle itself, or
// runtimeDir is empty), plus a replace directive for each dependency module
// that the rewriter copied and rewrote. The user's go.mod is never written.
func ToolModfile(gomod []byte, runtimeDir string, replace map[string]string) ([]byte, error) {
	return toolModfile(gomod, runtimeDir, replace, nil)
}

// toolModfile is ToolModfile that also requires the modules of require
// (at the version a replacement gets) when go.mod does not.
func toolModfile(gomod []byte, runtimeDir string, replace map[string]string, require []string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return nil, fmt.Errorf("heddle: %v", err)
	}
	if f.Module == nil {
		return nil, fmt.Errorf("heddle: go.mod has no module line")
	}
	if f.Module.Mod.Path != SelfPath && runtimeDir != "" {
		has := false
		for _, r := range f.Require {
			if r.Mod.Path == SelfPath {
				has = true // keep the user's version (go get -tool heddle.dev/...): the replace covers every version
			}
		}
		if !has {
			if err := f.AddRequire(SelfPath, "v0.0.0"); err != nil {
				return nil, err
			}
		}
		if err := setReplace(f, SelfPath, runtimeDir); err != nil {
			return nil, err
		}
	}
	for _, m := range require {
		has := false
		for _, r := range f.Require {
			has = has || r.Mod.Path == m
		}
		if !has {
			if err := f.AddRequire(m, zeroPseudo); err != nil {
				return nil, err
			}
		}
	}
	mods := make([]string, 0, len(replace))
	for m := range replace {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		if err := setReplace(f, m, replace[m]); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// setReplace makes path, at every version, resolve to the directory dir,
// dropping any replace of path the user had.
func setReplace(f *modfile.File, path, dir string) error {
	for _, r := range f.Replace {
		if r.Old.Path == path {
			if err := f.DropReplace(path, r.Old.Version); err != nil {
				return err
			}
		}
	}
	return f.AddReplace(path, "", dir, "")
}

// writeToolModfile writes modPath (…/heddle.mod) and, beside it, the matching
// heddle.sum copied from the user's go.sum, as `go -modfile` expects.
func writeToolModfile(m *Module, modPath, runtimeDir string, replace map[string]string, copySum bool) error {
	data, err := os.ReadFile(m.GoMod)
	if err != nil {
		return fmt.Errorf("heddle: %v", err)
	}
	var require []string
	if len(m.Workspace) > 0 {
		all := map[string]string{}
		for p, d := range m.Workspace {
			all[p] = d
			require = append(require, p)
		}
		for p, d := range replace {
			all[p] = d // a rewritten copy of a workspace module
		}
		replace = all
		sort.Strings(require)
	}
	out, err := toolModfile(data, runtimeDir, replace, require)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(modPath), 0o777); err != nil {
		return err
	}
	if err := writeFileAtomic(modPath, out); err != nil {
		return err
	}
	if !copySum {
		return nil
	}
	sumPath := strings.TrimSuffix(modPath, ".mod") + ".sum"
	sum, err := os.ReadFile(filepath.Join(m.Root, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return writeFileAtomic(sumPath, workSum(sum, m))
}
