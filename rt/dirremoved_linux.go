package rt

import (
	"os"
	"syscall"
)

// dirRemovable reports whether a read of an open directory fails once the
// directory is removed (Linux's getdents: ENOENT), which ReadDir models.
const dirRemovable = true

// dirRemoved reports whether the open directory d has been removed: it
// has no links left.
func dirRemoved(d *os.File) bool {
	fi, err := d.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
