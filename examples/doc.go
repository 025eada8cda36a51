// Package examples holds six small packages, each with a realistic
// concurrency bug that plain `go test` almost never shows, and a fixed twin
// of the same code, and one program, cmd/warm, whose cache computes a key
// twice about once in a thousand native runs. Run heddle on them:
//
//	heddle test ./...             find every bug, with a replay command each
//	heddle test ./... -run Fixed  the fixed twins: all pass
//	heddle run ./cmd/warm         the program's bug
//	heddle run ./cmd/warm -- -fixed
//
// Each package's test file names its buggy test after the bug
// (TestTransferDeadlock) and the twin after the fix (TestTransferFixed).
package examples
