// Package examples holds six small packages, each with a realistic
// concurrency bug that plain `go test` almost never shows, and a fixed twin
// of the same code. Run heddle on them:
//
//	heddle test ./...             find every bug, with a replay command each
//	heddle test ./... -run Fixed  the fixed twins: all pass
//
// Each package's test file names its buggy test after the bug
// (TestTransferDeadlock) and the twin after the fix (TestTransferFixed).
package examples
