package schedule

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func sample() *Schedule {
	return &Schedule{
		Format:      FormatV2,
		Test:        "TestTransfer",
		Package:     "example.com/bank",
		Dir:         "/home/me/bank",
		Version:     "v0.1.0",
		Fingerprint: strings.Repeat("ab", 32),
		Files:       map[string]string{"bank.go": "9a0e", "bank_test.go": "77"},
		Flags:       []string{"-race", "-tags=x"},
		Kind:        "deadlock",
		Message:     "all goroutines are blocked:\ndeadlock",
		Where:       "bank.go:12,bank.go:20",
		Steps:       9,
		Settings:    `{"MaxStarve":100000000,"Disable":["leak"]}`,
		Strategy:    "pct",
		Seed:        1,
		Run:         17,
		Extra:       map[string]string{"future": "value"},
		Choices:     []string{"g0.1", "g0#2", "@g0.1/t3", "@late", "g0.1.12", "g0.2/sb"},
	}
}

func TestRoundTrip(t *testing.T) {
	s := sample()
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(&buf)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", "the file is empty"},
		{"hello\n", `not a heddle schedule: line 1 is "hello"`},
		{"heddle-schedule v9\n", `schedule format "v9" is not supported by this heddle (it reads "v1" and "v2")`},
		{"heddle-schedule v1\ntest: T\nchoices:\ng0\n@late\n", `line 5: a late wake (@late) in a schedule of format v1`},
		{Magic + "\ntest: T\nchoices:\n@lately\n", "line 4: bad timer choice"},
		{Magic + "\ntest: T\n", "truncated"},
		{Magic + "\nchoices:\ng0\n", "names no test"},
		{Magic + "\ntest: T\nnonsense\nchoices:\n", `line 3: want "key: value"`},
		{Magic + "\ntest: T\nseed: x\nchoices:\n", "line 3: bad seed"},
		{Magic + "\ntest: T\nsteps: x\nchoices:\n", "line 3: bad steps"},
		{Magic + "\ntest: T\nfile: onlyname\nchoices:\n", `line 3: want "file: NAME HASH"`},
		{Magic + "\ntest: T\nchoices:\nh0\n", "line 4: bad choice"},
		{Magic + "\ntest: T\nchoices:\ng0#x\n", "line 4: bad select case"},
		{Magic + "\ntest: T\nchoices:\n@g0/q\n", "line 4: bad timer choice"},
		{Magic + "\ntest: T\nchoices:\ng0.x/sb\n", "line 4: bad store-buffer choice"},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// TestReadV1 checks that a schedule written before late wakes existed is
// read, and says it is of format v1 (its replay offers no late wake).
func TestReadV1(t *testing.T) {
	s, err := Parse(strings.NewReader("heddle-schedule v1\ntest: T\nchoices:\ng0.1\n@g0/t1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != FormatV1 || !reflect.DeepEqual(s.Choices, []string{"g0.1", "@g0/t1"}) {
		t.Errorf("got format %q, choices %q; want v1 and [g0.1 @g0/t1]", s.Format, s.Choices)
	}
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\n"); first != "heddle-schedule v1" {
		t.Errorf("Write's first line is %q, want heddle-schedule v1: a rewritten v1 schedule is still replayed without late wakes", first)
	}
}

// FuzzParse checks that Parse never panics, and that what it accepts
// survives a round trip through Write.
func FuzzParse(f *testing.F) {
	var buf bytes.Buffer
	sample().Write(&buf)
	f.Add(buf.String())
	f.Add(Magic + "\ntest: T\nchoices:\ng0\n")
	f.Add("heddle-schedule v2\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := s.Write(&out); err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(&out)
		if err != nil {
			t.Fatalf("rewritten schedule does not parse: %v\n%s", err, out.String())
		}
		if !reflect.DeepEqual(s.Choices, s2.Choices) || s.Test != s2.Test || s.Kind != s2.Kind {
			t.Fatalf("round trip changed the schedule:\n%+v\n%+v", s, s2)
		}
	})
}
