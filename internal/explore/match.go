package explore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// This file selects tests and subtests by -run and -skip patterns as
// package testing does (testing/match.go): a pattern is split at the
// slashes and bars outside brackets and parentheses into alternatives of
// slash-separated elements; a test or subtest runs when, in one
// alternative, each element matches the name at its level (a name deeper
// than the alternative is matched by its first levels), and -skip does not
// match every level of its full name.

// NameMatcher selects tests and subtests by -run and -skip patterns.
type NameMatcher struct {
	run, skip alternatives // run nil: everything; skip nil: nothing
}

// alternatives are the alternatives of a pattern, each a list of elements.
type alternatives [][]*regexp.Regexp

// NewNameMatcher returns the matcher of -run pattern run and -skip pattern
// skip ("" for none), or an error if one of their elements is not a
// regular expression.
func NewNameMatcher(run, skip string) (*NameMatcher, error) {
	m := &NameMatcher{}
	var err error
	if run != "" {
		if m.run, err = compileAlternatives(run); err != nil {
			return nil, fmt.Errorf("-run: %v", err)
		}
	}
	if skip != "" {
		if m.skip, err = compileAlternatives(skip); err != nil {
			return nil, fmt.Errorf("-skip: %v", err)
		}
	}
	return m, nil
}

func compileAlternatives(pattern string) (alternatives, error) {
	var alts alternatives
	for _, alt := range splitPattern(pattern) {
		var elems []*regexp.Regexp
		for i, e := range alt {
			re, err := regexp.Compile(rewriteName(e))
			if err != nil {
				return nil, fmt.Errorf("element %d of %q: %v", i, pattern, err)
			}
			elems = append(elems, re)
		}
		alts = append(alts, elems)
	}
	return alts, nil
}

// splitPattern splits a pattern as testing's splitRegexp does: into
// alternatives at the bars, and those into elements at the slashes, that
// are outside brackets and parentheses.
func splitPattern(s string) [][]string {
	var alts [][]string
	var elems []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 {
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				elems = append(elems, s[:i])
				if s[i] == '|' {
					alts = append(alts, elems)
					elems = nil
				}
				s = s[i+1:]
				i = 0
				continue
			}
		}
		i++
	}
	return append(alts, append(elems, s))
}

// matches reports whether some alternative matches the levels of name,
// and whether that match is partial (the alternative has more levels
// than name).
func (a alternatives) matches(name []string) (ok, partial bool) {
	for _, alt := range a {
		ok = true
		for i, s := range name {
			if i >= len(alt) {
				break
			}
			if !alt[i].MatchString(s) {
				ok = false
				break
			}
		}
		if ok {
			return true, len(name) < len(alt)
		}
	}
	return false, false
}

// Selects reports whether the test or subtest of full name ("TestX",
// "TestX/sub/leaf", as testing names them) runs.
func (m *NameMatcher) Selects(name string) bool {
	if m == nil {
		return true
	}
	elem := strings.Split(name, "/")
	if m.run != nil {
		if ok, _ := m.run.matches(elem); !ok {
			return false
		}
	}
	if m.skip != nil {
		if skip, partial := m.skip.matches(elem); skip && !partial {
			return false
		}
	}
	return true
}

// rewriteName is testing's rewrite of a subtest name (and of a pattern's
// elements): spaces become underscores, unprintable runes their escapes.
func rewriteName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case isSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
		return false
	}
	if r <= 0x200a {
		return true
	}
	switch r {
	case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return false
}

// subNames gives subtests their unique names, as testing does: the second
// subtest of a parent with the same name is "name#01", and so on.
type subNames map[string]int32

func (u subNames) unique(parent, subname string) string {
	base := parent + "/" + subname
	for {
		n := u[base]
		u[base] = n + 1
		if n == 0 && subname != "" {
			prefix, nn := parseSubtestNumber(base)
			if len(prefix) < len(base) && nn < u[prefix] {
				continue
			}
			return base
		}
		name := fmt.Sprintf("%s#%02d", base, n)
		if u[name] != 0 {
			continue
		}
		return name
	}
}

func parseSubtestNumber(s string) (prefix string, nn int32) {
	i := strings.LastIndex(s, "#")
	if i < 0 {
		return s, 0
	}
	prefix, suffix := s[:i], s[i+1:]
	if len(suffix) < 2 || (len(suffix) > 2 && suffix[0] == '0') {
		return s, 0
	}
	if suffix == "00" && !strings.HasSuffix(prefix, "/") {
		return s, 0
	}
	n, err := strconv.ParseInt(suffix, 10, 32)
	if err != nil || n < 0 {
		return s, 0
	}
	return prefix, int32(n)
}

var (
	selectedOnce sync.Once
	selected     *NameMatcher
)

// subtestMatcher is the matcher of the subtests this process explores
// (Config.Run, Config.Skip); nil selects all.
func subtestMatcher() *NameMatcher {
	selectedOnce.Do(func() {
		cfg, err := LoadConfig()
		if err != nil || (cfg.Run == "" && cfg.Skip == "") {
			return
		}
		// heddle test checked the patterns; a bad one selects all.
		selected, _ = NewNameMatcher(cfg.Run, cfg.Skip)
	})
	return selected
}

// SubtestPatterns returns the -run and -skip patterns as far as they
// select subtests (Config.Run, Config.Skip): a pattern none of whose
// alternatives has more than one element selects every subtest of the
// tests it selects, and is "" here, so that a schedule records no pattern
// that changes nothing in its run.
func SubtestPatterns(run, skip string) (string, string) {
	deep := func(p string) string {
		for _, alt := range splitPattern(p) {
			if len(alt) > 1 {
				return p
			}
		}
		return ""
	}
	return deep(run), deep(skip)
}
