package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"heddle.dev/internal/goker"
	"heddle.dev/internal/strategy"
)

// seedsMain measures runs to the first bug per program, member and seed
// (goker.MeasureSeeds), appending the samples to a CSV file.
func seedsMain(seeds, members, samples, examples string, discriminating bool, budget int, run string, timeout time.Duration, heddleBin, rev string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	seedList, err := goker.ParseSeeds(seeds)
	if err != nil {
		return err
	}
	goroot, err := goker.GOROOT()
	if err != nil {
		return err
	}
	modDir, err := goker.ModuleDir("goker")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(samples) {
		samples = filepath.Join(modDir, samples)
	}
	if examples != "" && !filepath.IsAbs(examples) {
		examples = filepath.Join(modDir, examples)
	}
	have := map[string]bool{}
	var old []goker.Sample
	if _, err := os.Stat(samples); err == nil {
		if old, err = goker.ReadSamples(samples); err != nil {
			return err
		}
		for _, s := range old {
			have[fmt.Sprint(s.Corpus, s.Program, s.Member, s.Seed)] = true
		}
	}
	work, heddleBin, cleanup, err := workDir(ctx, "goker-seeds-", keep, modDir, rev, heddleBin)
	if err != nil {
		return err
	}
	defer cleanup()
	w, err := goker.AppendSamples(samples)
	if err != nil {
		return err
	}
	defer w.Close()
	cfg := goker.SeedsConfig{
		GOROOT:   goroot,
		Heddle:   heddleBin,
		Examples: examples,
		Budget:   budget,
		Members:  strings.Split(members, ","),
		Seeds:    seedList,
		Timeout:  timeout,
		Work:     work,
		Log:      os.Stderr,
		Have: func(corpus, program, member string, seed int64) bool {
			return have[fmt.Sprint(corpus, program, member, seed)]
		},
		Add: w.Write,
	}
	if discriminating {
		cfg.Skip = skipSettled(old)
	}
	if run != "" {
		if cfg.Run, err = regexp.Compile(run); err != nil {
			return err
		}
	}
	return goker.MeasureSeeds(ctx, cfg)
}

// skipSettled returns a Skip function for the samples already measured:
// it skips the programs on which every sample found the bug at run 1 (all
// strategies agree), and the members that missed the bug in each of at
// least two samples of a program (more seeds would cost the whole budget
// each to confirm a near-zero probability).
func skipSettled(old []goker.Sample) func(corpus, program, member string) bool {
	type pk struct{ corpus, program string }
	type pm struct{ corpus, program, member string }
	discriminates := map[pk]bool{}
	tries, finds := map[pm]int{}, map[pm]int{}
	for _, s := range old {
		if !s.Found || s.Run > 1 {
			discriminates[pk{s.Corpus, s.Program}] = true
		}
		k := pm{s.Corpus, s.Program, s.Member}
		tries[k]++
		if s.Found {
			finds[k]++
		}
	}
	return func(corpus, program, member string) bool {
		k := pm{corpus, program, member}
		return !discriminates[pk{corpus, program}] || tries[k] >= 2 && finds[k] == 0
	}
}

// candidates are the mixes always evaluated after the one in the tree
// (strategy.DefaultMix): the mix before it was measured, each member
// alone, and variations on the warm-up, the members and the shares.
var candidates = []string{
	"idb:50:1,pct3:0:3,pos:0:3,pct2:0:2,random:0:1", // the mix before it was measured
	"random:0:1",
	"pos:0:1",
	"pct1:0:1",
	"pct2:0:1",
	"pct3:0:1",
	"idb:0:1",
	"sdpor:0:1",
	"odpor:0:1",
	"idb:0:0,pct3:0:3,pos:0:3,pct2:0:2,random:0:1", // the old rotation without warm-up
	"idb:10:1,pct3:0:3,pos:0:3,pct2:0:2,random:0:1",
	"idb:5:1,random:0:3,pos:0:2,pct3:0:1", // a short warm-up, then the new rotation
	"random:0:3,pos:0:2",
	"random:0:3,pos:0:2,pct3:0:1",
	"random:0:3,pct3:0:1,idb:0:1",
	"random:0:2,pos:0:1,pct3:0:1,idb:0:1",
	"random:0:3,pos:0:3,pct3:0:1,idb:0:1",
	"random:0:3,pos:0:2,pct2:0:1,idb:0:1",
	"random:0:3,pos:0:2,pct3:0:1,sdpor:0:1",
	"pos:0:2,random:0:3,pct3:0:1,idb:0:1", // POS first
	"default:0:1",                         // the portfolio as measured (when the samples have it)
}

// simulateMain evaluates mixes from the samples and prints a Markdown
// table.
func simulateMain(command, samples string, budget int, extra string, search bool) error {
	modDir, err := goker.ModuleDir("goker")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(samples) {
		samples = filepath.Join(modDir, samples)
	}
	ss, err := goker.ReadSamples(samples)
	if err != nil {
		return err
	}
	idx := goker.IndexSamples(ss, budget)
	var evs []*goker.Evaluation
	done := map[string]bool{}
	measured := map[string]bool{}
	for _, m := range idx.Members() {
		measured[m] = true
	}
	eval := func(spec string) error {
		mix, err := goker.ParseMix(spec)
		if err != nil {
			return err
		}
		if done[goker.MixString(mix)] {
			return nil
		}
		for _, m := range mix {
			if !measured[m.Name] {
				fmt.Fprintf(os.Stderr, "goker: skipping %s: %s was not measured on every program\n", spec, m.Name)
				return nil
			}
		}
		done[goker.MixString(mix)] = true
		ev, err := idx.Simulate(mix)
		if err != nil {
			return err
		}
		evs = append(evs, ev)
		return nil
	}
	for _, spec := range append(append([]string{goker.MixString(strategy.DefaultMix())}, candidates...), strings.Fields(extra)...) {
		if err := eval(spec); err != nil {
			return err
		}
	}
	fixed := len(evs)
	if search {
		for _, mix := range grid(idx.Members()) {
			if err := eval(goker.MixString(mix)); err != nil {
				return err
			}
		}
	}
	sort.SliceStable(evs[fixed:], func(i, j int) bool { return better(evs[fixed+i], evs[fixed+j]) })
	fmt.Printf("Portfolio mixes simulated from %s (%d samples, budget %d).\n\n", filepath.Base(samples), len(ss), budget)
	fmt.Printf("Command: `%s`\n\n", command)
	printTable(evs[:fixed])
	if search {
		fmt.Printf("\nBest %d of %d mixes of the search grid (by geometric mean, then mean):\n\n", min(20, len(evs)-fixed), len(evs)-fixed)
		printTable(evs[fixed:min(len(evs), fixed+20)])
	}
	fmt.Printf("\nExpected runs to the first bug per program, where these differ by half a run or more:\n\n")
	printPrograms(evs[:min(3, fixed)])
	return nil
}

// better orders evaluations: more programs found within the budget, then
// a lower geometric mean of the expected runs, then a lower mean.
func better(a, b *goker.Evaluation) bool {
	last := len(goker.Checkpoints) - 1
	if d := a.Found[last] - b.Found[last]; math.Abs(d) > 0.05 {
		return d > 0
	}
	if a.GeoRuns != b.GeoRuns {
		return a.GeoRuns < b.GeoRuns
	}
	return a.MeanRuns < b.MeanRuns
}

func printTable(evs []*goker.Evaluation) {
	fmt.Print("| mix (member:warm-up:weight) |")
	for _, n := range goker.Checkpoints {
		fmt.Printf(" found ≤ %d |", n)
	}
	fmt.Println(" mean runs | geo. mean runs | time |")
	fmt.Print("|---|")
	for range goker.Checkpoints {
		fmt.Print("---|")
	}
	fmt.Println("---|---|---|")
	for _, ev := range evs {
		fmt.Printf("| `%s` |", ev.Mix)
		for _, f := range ev.Found {
			fmt.Printf(" %.1f |", f)
		}
		fmt.Printf(" %.2f | %.3f | %.1fs |\n", ev.MeanRuns, ev.GeoRuns, ev.Seconds)
	}
}

// printPrograms lists the expected runs per program where the mixes
// differ by half a run or more.
func printPrograms(evs []*goker.Evaluation) {
	fmt.Print("| program |")
	for _, ev := range evs {
		fmt.Printf(" `%s` |", ev.Mix)
	}
	fmt.Print("\n|---|")
	for range evs {
		fmt.Print("---|")
	}
	fmt.Println()
	for p := range evs[0].Programs {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, ev := range evs {
			lo, hi = min(lo, ev.Programs[p].Runs), max(hi, ev.Programs[p].Runs)
		}
		if hi-lo < 0.5 {
			continue
		}
		e := evs[0].Programs[p]
		fmt.Printf("| %s/%s |", e.Corpus, e.Program)
		for _, ev := range evs {
			fmt.Printf(" %.1f |", ev.Programs[p].Runs)
		}
		fmt.Println()
	}
}

// grid returns the mixes of the search: IDB's warm-up and weight, and
// weights 0–3 of the randomized members, in lowest terms.
func grid(members []string) [][]strategy.PortfolioMember {
	has := map[string]bool{}
	for _, m := range members {
		has[m] = true
	}
	var rnd []string
	for _, m := range []string{"random", "pos", "pct1", "pct2", "pct3"} {
		if has[m] {
			rnd = append(rnd, m)
		}
	}
	var out [][]strategy.PortfolioMember
	for _, warm := range []int{0, 3, 5, 10, 20, 50} {
		for idbW := 0; idbW <= 1; idbW++ {
			ws := make([]int, len(rnd))
			for {
				g, sum := idbW, 0
				for _, w := range ws {
					g = gcd(g, w)
					sum += w
				}
				if sum > 0 && g == 1 && has["idb"] {
					mix := []strategy.PortfolioMember{{Name: "idb", Warmup: warm, Weight: idbW}}
					for i, w := range ws {
						if w > 0 {
							mix = append(mix, strategy.PortfolioMember{Name: rnd[i], Weight: w})
						}
					}
					out = append(out, mix)
				}
				i := 0
				for ; i < len(ws) && ws[i] == 3; i++ {
					ws[i] = 0
				}
				if i == len(ws) {
					break
				}
				ws[i]++
			}
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
