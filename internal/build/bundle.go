package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"heddle.dev"
	"heddle.dev/internal/cachefile"
)

// runtimeFiles lists the runtime source files of fsys under heddle's
// RuntimeDirs (Go and assembly), without tests, sorted.
func runtimeFiles(fsys fs.FS) ([]string, error) {
	var names []string
	for _, dir := range heddle.RuntimeDirs {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !(strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".s")) || strings.HasSuffix(n, "_test.go") {
				continue
			}
			names = append(names, path.Join(dir, n))
		}
	}
	sort.Strings(names)
	return names, nil
}

// RuntimeHash is the hash of the runtime sources in fsys: their names and
// contents. It is part of every fingerprint, so that a schedule recorded
// with one runtime is not replayed with another.
func RuntimeHash(fsys fs.FS) (string, error) {
	names, err := runtimeFiles(fsys)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// bundleGoMod is the go.mod written next to the extracted runtime.
func bundleGoMod() string {
	return "module heddle.dev\n\ngo " + heddle.RuntimeGoVersion + "\n"
}

// ExtractRuntime writes the runtime sources of fsys, with a go.mod of their
// own, into cacheDir/rt-HASH and returns that directory and the hash. A
// directory that is already complete is reused: its name is its content.
func ExtractRuntime(fsys fs.FS, cacheDir string) (dir, hash string, err error) {
	hash, err = RuntimeHash(fsys)
	if err != nil {
		return "", "", fmt.Errorf("heddle: reading the embedded runtime: %v", err)
	}
	dir = filepath.Join(cacheDir, "rt-"+hash[:16])
	const done = ".complete"
	if fi, err := os.Stat(filepath.Join(dir, done)); err == nil {
		cachefile.MarkUsed(filepath.Join(dir, done), fi)
		return dir, hash, nil
	}
	if err := os.MkdirAll(cacheDir, 0o777); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(cacheDir, "rt-tmp-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	names, err := runtimeFiles(fsys)
	if err != nil {
		return "", "", err
	}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", "", err
		}
		dst := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(dst, b, 0o444); err != nil {
			return "", "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(bundleGoMod()), 0o444); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, done), nil, 0o444); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another heddle may have extracted the same runtime meanwhile.
		if _, serr := os.Stat(filepath.Join(dir, done)); serr == nil {
			return dir, hash, nil
		}
		// A leftover incomplete directory: replace it.
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			return "", "", fmt.Errorf("heddle: extracting the runtime: %v", err)
		}
	}
	return dir, hash, nil
}
