//go:build !linux

package rt

import "os"

// dirRemovable: elsewhere, ReadDir does not model a read of a removed
// directory (dirremoved_linux.go).
const dirRemovable = false

func dirRemoved(*os.File) bool { return false }
