package conform

import "strings"

// The code below this line is also the native driver's: driverFile copies
// it into the native module (package prog), so that it is tested here.
// It must use only the imports of the driver (driver in module.go).

// conformG is a goroutine left by a native run: its id, its state ("chan
// receive", "running", ...), its innermost position in the programs' files,
// and whether it is inside package testing's code called from there (a
// late t.Error waiting for a lock of the testing package).
type conformG struct {
	id, state, pos string
	inTesting      bool
}

// conformParse returns the goroutines of dump, the output of
// runtime.Stack(buf, true) called by the driver, other than the caller
// (the first) and those in old, that run code of the files named in files,
// with their state and innermost position in those files.
func conformParse(dump string, old, files map[string]bool) []conformG {
	var out []conformG
	for i, g := range strings.Split(dump, "\n\n") {
		if i == 0 {
			continue // the caller
		}
		lines := strings.Split(g, "\n")
		head := strings.TrimPrefix(lines[0], "goroutine ")
		sp := strings.Index(head, " ")
		if sp < 0 {
			continue
		}
		id := head[:sp]
		if old[id] {
			continue
		}
		state := strings.TrimSuffix(strings.TrimPrefix(head[sp+1:], "["), "]:")
		if j := strings.Index(state, ","); j >= 0 {
			state = state[:j]
		}
		pos, inTesting := "", false
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "\t") {
				// A function: testing.(*common).Errorf(...).
				inTesting = inTesting || strings.HasPrefix(l, "testing.")
				continue
			}
			if strings.HasPrefix(l, "\tcreated by") {
				continue
			}
			l = strings.TrimSpace(l)
			if j := strings.LastIndex(l, " +0x"); j >= 0 {
				l = l[:j]
			}
			l = l[strings.LastIndex(l, "/")+1:]
			if file, _, ok := strings.Cut(l, ":"); ok && files[file] {
				pos = l
				break
			}
		}
		if pos != "" {
			out = append(out, conformG{id, state, pos, inTesting})
		}
	}
	return out
}

// conformBlocked reports whether g is blocked for good unless another
// goroutine of the program wakes it: in a channel operation, a select or
// a sync primitive of the program. A goroutine blocked inside package
// testing (a t.Error after the run returned, waiting for the lock of a
// test that the driver's next run holds a moment) is not: the driver, not
// the program, holds that lock, and releases it.
func conformBlocked(g conformG) bool {
	if g.inTesting {
		return false
	}
	switch g.state {
	case "chan send", "chan receive", "chan send (nil chan)", "chan receive (nil chan)",
		"select", "select (no cases)", "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock",
		"sync.Cond.Wait", "sync.WaitGroup.Wait", "semacquire":
		return true
	}
	return false
}
