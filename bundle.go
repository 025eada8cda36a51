// Package heddle carries the sources of heddle's runtime, so that an
// installed heddle binary can build rewritten tests without its own source
// tree on disk.
//
// Rewritten code imports heddle.dev/rt, which imports heddle.dev/internal/...
// The heddle command extracts these files (never the _test.go ones) into a
// cache directory with a go.mod of its own and points the user's build at it
// with a replace directive; see heddle.dev/internal/build.
package heddle

import "embed"

// Runtime holds the runtime packages, rooted at the module root: rt/*.go,
// internal/engine/*.go and so on. It may contain _test.go files, which
// extraction skips.
//
//go:embed rt/*.go internal/engine/*.go internal/engine/*.s internal/strategy/*.go internal/explore/*.go internal/explore/require/*.go internal/schedule/*.go internal/event/*.go
var Runtime embed.FS

// RuntimeDirs are the directories of Runtime, in the order of the embed
// patterns above.
var RuntimeDirs = []string{
	"rt",
	"internal/engine",
	"internal/strategy",
	"internal/explore",
	"internal/explore/require",
	"internal/schedule",
	"internal/event",
}

// RuntimeGoVersion is the go line of the go.mod written next to the
// extracted runtime. Users' modules may be as old as this, so the runtime
// must not use a newer language feature or standard library API; a test in
// heddle.dev/internal/build builds the extracted bundle to check it.
const RuntimeGoVersion = "1.21"
