package build

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// zeroPseudo is the version a requirement on a module that only a
// replace directive (or a workspace) provides gets, as go mod tidy writes.
const zeroPseudo = "v0.0.0-00010101000000-000000000000"

// findWorkspace fills m.Workspace and m.WorkSums when the go command, with
// the user's environment, sees dir in a go.work workspace. heddle builds
// with its own copy of go.mod and GOWORK=off; the other modules of the
// workspace become replace directives (and requirements) of that copy, and
// the workspace's local replace directives are kept, so that the packages
// resolve as go test resolves them in workspace mode.
func findWorkspace(m *Module, dir string, env []string) error {
	cmd := exec.Command("go", "env", "GOWORK")
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil // no workspace as far as heddle can tell
	}
	work := strings.TrimSpace(string(out))
	if work == "" || work == "off" {
		return nil
	}
	data, err := os.ReadFile(work)
	if err != nil {
		return fmt.Errorf("heddle: workspace %s: %v", work, err)
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return fmt.Errorf("heddle: %v (heddle reads go.work to build in a workspace; GOWORK=off builds without it)", err)
	}
	wdir := filepath.Dir(work)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wdir, p)
	}
	// A go.work that does not use this module does not apply to it (go
	// test refuses to run; heddle ignores the stray file).
	member := false
	for _, u := range wf.Use {
		if d := abs(u.Path); d == m.Root || sameDir(d, m.Root) {
			member = true
		}
	}
	if !member {
		return nil
	}
	m.Workspace = map[string]string{}
	addSum := func(name string) {
		if b, err := os.ReadFile(name); err == nil {
			m.WorkSums = append(m.WorkSums, b)
		}
	}
	addSum(work + ".sum")
	for _, u := range wf.Use {
		d := abs(u.Path)
		gm, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err != nil {
			continue // as if it were not listed: it provides nothing
		}
		p := modfile.ModulePath(gm)
		if p == "" || p == m.Path {
			continue
		}
		m.Workspace[p] = d
		addSum(filepath.Join(d, "go.sum"))
	}
	for _, r := range wf.Replace {
		if r.New.Version != "" || !modfile.IsDirectoryPath(r.New.Path) {
			return fmt.Errorf("heddle: workspace %s replaces %s by the module %s %s: heddle builds a workspace's local replacements only; set GOWORK=off and add the replace directive to go.mod", work, r.Old.Path, r.New.Path, r.New.Version)
		}
		m.Workspace[r.Old.Path] = abs(r.New.Path)
	}
	return nil
}

// workSum is the go.sum content heddle's go.mod copy needs in a workspace:
// the main module's sums and the workspace's.
func workSum(sum []byte, m *Module) []byte {
	if len(m.WorkSums) == 0 {
		return sum
	}
	var b bytes.Buffer
	b.Write(sum)
	for _, s := range m.WorkSums {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
		b.Write(s)
	}
	return b.Bytes()
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
