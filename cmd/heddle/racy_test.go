package main

import (
	"reflect"
	"testing"

	"heddle.dev/internal/rewrite"
)

const raceOutput = `=== RUN   TestMap
==================
WARNING: DATA RACE
Write at 0x00c0000a2030 by goroutine 9:
  runtime.mapassign_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr_swiss.go:263 +0x0
  example.com/m.(*Cache).Put()
      /home/me/m/cache.go:20 +0x7c
  example.com/m.TestMap.func1()
      /home/me/m/cache_test.go:12 +0x44
  heddle.dev/rt.Go.func1()
      /home/me/.cache/heddle/runtime/rt/goroutine.go:20 +0x55

Previous read at 0x00c0000a2030 by goroutine 8:
  runtime.mapaccess1_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr_swiss.go:103 +0x0
  example.com/m.(*Cache).Get()
      /home/me/m/cache.go:14 +0x64

Goroutine 9 (running) created at:
  heddle.dev/rt.Go()
      /home/me/.cache/heddle/runtime/rt/goroutine.go:15 +0x10
  example.com/m.TestMap()
      /home/me/m/cache_test.go:11 +0x3a
==================
==================
WARNING: DATA RACE
Read at 0x00c0000b4000 by main goroutine:
  example.com/m.(*Cache).Len()
      /home/me/m/cache.go:30 +0x24

Previous write at 0x00c0000b4000 by goroutine 9:
  example.com/m.(*Cache).Put()
      /home/me/m/cache.go:21 +0x90

Goroutine 9 (finished) created at:
  example.com/m.TestMap()
      /home/me/m/cache_test.go:11 +0x3a
==================
==================
WARNING: DATA RACE
Write at 0x00c0000c0000 by goroutine 3:
  example.com/other.F()
      /home/me/other/f.go:3 +0x24

Previous write at 0x00c0000c0000 by goroutine 4:
  example.com/m.Other()
      /home/me/m/other.go:7 +0x90
==================
`

func TestParseRaces(t *testing.T) {
	got := parseRaces(raceOutput, "/home/me/m")
	want := [][2]raceAccess{
		{{"/home/me/m/cache.go", 20, true}, {"/home/me/m/cache.go", 14, false}},
		{{"/home/me/m/cache.go", 30, false}, {"/home/me/m/cache.go", 21, true}},
		// The third report has an access outside the module: left out.
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseRaces:\n got %v\nwant %v", got, want)
	}
	stmts := racyStatements(append(got, [2]raceAccess{{"/home/me/m/cache.go", 14, false}, {"/home/me/m/a.go", 5, false}}), "g")
	wantStmts := []rewrite.RacyStmt{
		{File: "/home/me/m/a.go", Line: 5, Group: "g1"},
		{File: "/home/me/m/cache.go", Line: 14, Group: "g1"},
		{File: "/home/me/m/cache.go", Line: 20, Write: true, Group: "g1"},
		{File: "/home/me/m/cache.go", Line: 21, Write: true, Group: "g2"},
		{File: "/home/me/m/cache.go", Line: 30, Group: "g2"},
	}
	if !reflect.DeepEqual(stmts, wantStmts) {
		t.Fatalf("racyStatements:\n got %v\nwant %v", stmts, wantStmts)
	}
}
