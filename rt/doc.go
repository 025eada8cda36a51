// Package rt is the runtime that heddle-rewritten code calls.
//
// heddle's rewriter replaces every concurrency construct of a package under
// test (go statements, channel operations, select, sync, sync/atomic, time,
// context, runtime.Gosched and friends, map iteration, math/rand and calls on
// *testing.T) with a call into this package. Values keep their native types:
// a chan T stays a chan T and a sync.Mutex stays a sync.Mutex. The one
// exception is io.Pipe, whose ends wait inside package io: its types
// io.PipeReader and io.PipeWriter become this package's PipeReader and
// PipeWriter, a model of io's pipe (iopipe.go). While a test
// is being explored, each call is a scheduling point: the calling goroutine
// announces its operation and parks until heddle's scheduler picks it.
// Outside an exploration (package initialisation, benchmarks, TestMain) every
// function behaves exactly like the construct it replaces.
//
// This package is the contract between the rewriter and the runtime. It is
// small on purpose and changes only in backward-compatible ways; everything
// behind it lives in heddle.dev/internal.
package rt
