package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Fingerprint identifies a rewritten program: the hashes of its rewritten
// files (by their names relative to the module), the runtime's hash and the
// build flags. A schedule is replayed only on a program with the same
// fingerprint.
func Fingerprint(files map[string]string, runtimeHash string, flags []string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "heddle fingerprint v1\n")
	for _, n := range names {
		fmt.Fprintf(h, "file %q %s\n", n, files[n])
	}
	fmt.Fprintf(h, "runtime %s\n", runtimeHash)
	fmt.Fprintf(h, "flags %q\n", flags)
	return hex.EncodeToString(h.Sum(nil))
}

// RelName names a file for a schedule: relative to the module root when it
// is inside the module, else relative to the module cache (module@version/…),
// else its absolute path. Names use forward slashes.
func RelName(moduleRoot, modCache, file string) string {
	if r, ok := within(moduleRoot, file); ok {
		return r
	}
	if modCache != "" {
		if r, ok := within(modCache, file); ok {
			return r
		}
	}
	return filepath.ToSlash(file)
}

func within(dir, file string) (string, bool) {
	r, err := filepath.Rel(dir, file)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// FileDiff describes how the files of a recorded program differ from the
// current ones, as "bank.go changed, util.go removed". It is empty when they
// are the same.
func FileDiff(recorded, current map[string]string) string {
	var changed, added, removed []string
	for n, h := range recorded {
		c, ok := current[n]
		switch {
		case !ok:
			removed = append(removed, n)
		case c != h:
			changed = append(changed, n)
		}
	}
	for n := range current {
		if _, ok := recorded[n]; !ok {
			added = append(added, n)
		}
	}
	sort.Strings(changed)
	sort.Strings(added)
	sort.Strings(removed)
	var parts []string
	add := func(names []string, what string) {
		const max = 5
		for i, n := range names {
			if i == max {
				parts = append(parts, fmt.Sprintf("%d more files %s", len(names)-max, what))
				break
			}
			parts = append(parts, n+" "+what)
		}
	}
	add(changed, "changed")
	add(removed, "removed")
	add(added, "added")
	return strings.Join(parts, ", ")
}
