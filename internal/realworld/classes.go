package realworld

// Verdict classifies a report heddle made on the corpus.
type Verdict string

// Verdicts. Genuine reports are bugs in the code or in the test; the
// others are not bugs of the program.
const (
	Unclassified Verdict = ""
	CodeBug      Verdict = "bug in the code"
	TestBug      Verdict = "bug in the test"
	Timing       Verdict = "timing-dependent test"
	HeddleFault  Verdict = "heddle fault"
)

// Genuine reports whether the verdict is a real bug (in the code or in
// the test).
func (v Verdict) Genuine() bool { return v == CodeBug || v == TestBug }

// Class is the judgement on one report, made by reading it.
type Class struct {
	Verdict Verdict
	Why     string
}

// classes are the judgements on the reports heddle made on the corpus,
// keyed by package, test and kind ("pkg.TestX kind"). They are filled in by
// hand after reading each report (its text, the test and the code); a
// report not found here is listed as unclassified in the results.
var classes = map[string]Class{}

// Classify looks up the judgement on a report.
func Classify(pkg, test, kind string) Class {
	return classes[pkg+"."+test+" "+kind]
}
