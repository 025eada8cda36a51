package build

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// useVendor makes the modules of the main module's vendor/ directory
// available to heddle's build as go test uses them (heddle builds with its
// own copy of go.mod and -mod=mod, which ignores vendor/): each module
// listed in vendor/modules.txt is copied, its vendored packages and a
// go.mod of its path, under cacheDir, and added to m.Workspace, so that
// heddle's go.mod copy replaces it by that directory. No module is
// downloaded. It does nothing when there is no vendor/modules.txt, or when
// the user's GOFLAGS asks for -mod=mod or -mod=readonly.
func useVendor(m *Module, env []string, cacheDir string) error {
	list := filepath.Join(m.Root, "vendor", "modules.txt")
	data, err := os.ReadFile(list)
	if err != nil {
		return nil
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok && (strings.Contains(v, "-mod=mod") || strings.Contains(v, "-mod=readonly")) {
			return nil
		}
	}
	root := filepath.Join(cacheDir, "vendor", shortHash(m.Root))
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	type mod struct {
		path, dir string
		pkgs      []string
	}
	var mods []*mod
	var cur *mod
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			f := strings.Fields(line[2:])
			if len(f) < 2 {
				cur = nil
				continue
			}
			cur = &mod{path: f[0], dir: filepath.Join(root, f[0]+"@"+f[1])}
			mods = append(mods, cur)
		case strings.HasPrefix(line, "#"), line == "":
		default:
			if cur != nil {
				cur.pkgs = append(cur.pkgs, strings.TrimSpace(line))
			}
		}
	}
	if m.Workspace == nil {
		m.Workspace = map[string]string{}
	}
	for _, md := range mods {
		if err := os.MkdirAll(md.dir, 0o777); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(md.dir, "go.mod"), []byte("module "+md.path+"\n"), 0o666); err != nil {
			return err
		}
		for _, pkg := range md.pkgs {
			rel := strings.TrimPrefix(strings.TrimPrefix(pkg, md.path), "/")
			if err := copyFiles(filepath.Join(m.Root, "vendor", filepath.FromSlash(pkg)), filepath.Join(md.dir, filepath.FromSlash(rel))); err != nil {
				return fmt.Errorf("heddle: vendor/%s: %v (vendor/modules.txt lists it; run go mod vendor)", pkg, err)
			}
		}
		if _, ok := m.Workspace[md.path]; !ok {
			m.Workspace[md.path] = md.dir
		}
	}
	return nil
}

// copyFiles copies the regular files of the directory from (not its
// subdirectories) into to.
func copyFiles(from, to string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o777); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o666); err != nil {
			return err
		}
	}
	return nil
}
