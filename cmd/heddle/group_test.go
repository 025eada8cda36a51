package main

import (
	"testing"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
)

func TestGroupTime(t *testing.T) {
	evs := []event.Event{
		{Action: event.Summary, Test: "TestA", Elapsed: 100, Parallel: true},
		{Action: event.Summary, Test: "TestB", Elapsed: 2, Parallel: true},
		{Action: event.Summary, Test: "TestSeq", Elapsed: 500},
	}
	if got := parallelTests(evs); len(got) != 2 || got[0] != "TestA" || got[1] != "TestB" {
		t.Fatalf("parallelTests = %v, want [TestA TestB]", got)
	}
	// The average of the group's tests, not the slowest one's time.
	if got, want := groupTime(evs, []string{"TestA", "TestB"}, 0), 51*time.Second; got != want {
		t.Errorf("groupTime = %v, want %v", got, want)
	}
	// Short tests: at least minGroupTime.
	small := []event.Event{{Action: event.Summary, Test: "TestA", Elapsed: 0.01}, {Action: event.Summary, Test: "TestB", Elapsed: 0.02}}
	if got := groupTime(small, []string{"TestA", "TestB"}, 0); got != minGroupTime {
		t.Errorf("groupTime of short tests = %v, want %v", got, minGroupTime)
	}
	// A test whose summary does not say (a -parallel split): its share of took.
	if got, want := groupTime(evs[:1], []string{"TestA", "TestC"}, 40*time.Second), 60*time.Second; got != want {
		t.Errorf("groupTime with an unknown test = %v, want %v", got, want)
	}
}

func TestGroupName(t *testing.T) {
	if got := explore.GroupName([]string{"TestA", "TestB"}); got != "TestA+TestB" {
		t.Errorf("GroupName = %q", got)
	}
	many := []string{"TestA", "TestB", "TestC", "TestD", "TestE"}
	if got := explore.GroupName(many); got != "TestA+TestB+3-more" {
		t.Errorf("GroupName of 5 = %q", got)
	}
	if got := explore.GroupRunPattern([]string{"TestA", "Test.B"}); got != `^(TestA|Test\.B)$` {
		t.Errorf("GroupRunPattern = %q", got)
	}
}

func TestGroupProven(t *testing.T) {
	proof := "all schedules explored, no bug"
	proven := map[string]bool{proof + explore.AloneProof: true}
	evs := []event.Event{{Action: event.Summary, Test: "TestA+TestB", Group: []string{"TestA", "TestB"}, Exhausted: true, Proven: proof}}
	if got := groupProven(evs, proven); len(got) != 1 || !got[proof] {
		t.Errorf("groupProven after the group's proof = %v", got)
	}
	evs[0].Exhausted, evs[0].Proven = false, ""
	if got := groupProven(evs, proven); !got[proof+explore.AloneProof] {
		t.Errorf("groupProven without the group's proof = %v", got)
	}
}
