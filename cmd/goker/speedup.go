package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/goker"
)

// speedupKernels are the GoKer kernels of the -speedup measurement
// (issue 12, point 3: the speedup of -parallel 2 over -parallel 1 on a
// GoKer subset), with the runs of each exploration. With their bugs
// (leaks and deadlocks, most found at run 1) disabled, these are the
// kernels whose single form has more than 3,000 schedules up to
// equivalence (source DPOR's runs with -budget 3000, 2026-11-24) and
// whose runs end in milliseconds: every other kernel's schedules are
// explored in at most 532 runs, or its runs take seconds each. What is
// measured is the exploration of their schedules, not the time to a
// first bug. The budgets (runs, in the order of speedupStrategies) make
// each exploration take some 2-3 s of processor time with one worker
// (a run of source or optimal DPOR costs up to a hundred times one of
// random on these kernels). They are smaller than the kernels' trees:
// DFS and DPOR explore a budget's worth of a large tree, and with two
// workers other runs than with one (the first runs of each subtree), so
// their processor times are not the same work.
var speedupKernels = []struct {
	name    string
	budgets [5]int
}{
	{"Istio17860", [5]int{100000, 100000, 100000, 6000, 5000}},
	{"Istio18454", [5]int{15000, 6000, 15000, 1500, 1000}},
	{"Moby21233", [5]int{50000, 60000, 60000, 8000, 5000}},
	{"Etcd7492", [5]int{60000, 60000, 15000, 1000, 1000}},
}

// speedupStrategies are the strategies measured.
var speedupStrategies = []string{"random", "pct", "dfs", "sdpor", "odpor"}

// speedupMain measures heddle test -parallel 2 against -parallel 1 on the
// single form of speedupKernels (those matching run, if set), printing per
// kernel and strategy: the wall time of each and the speedup, the
// processor time (user and system, heddle and its workers), the runs, and
// whether the two ok lines are the same but for their times; and the load
// average before and after.
func speedupMain(run, heddleBin, rev string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	goroot, err := goker.GOROOT()
	if err != nil {
		return err
	}
	modDir, err := goker.ModuleDir("goker")
	if err != nil {
		return err
	}
	ks, err := goker.Load(goroot)
	if err != nil {
		return err
	}
	byName := map[string]*goker.Kernel{}
	for _, k := range ks {
		byName[k.Name] = k
	}
	var re *regexp.Regexp
	if run != "" {
		if re, err = regexp.Compile(run); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	work, heddleBin, cleanup, err := workDir(ctx, "goker-speedup-", keep, modDir, rev, heddleBin)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("load average at start: %s\n", loadAvg())
	start := time.Now()
	for _, sk := range speedupKernels {
		k := byName[sk.name]
		if k == nil {
			return fmt.Errorf("kernel %s not found in %s", sk.name, goroot)
		}
		if re != nil && !re.MatchString(k.Name) && !re.MatchString(k.File) {
			continue
		}
		c, err := k.Prepare(goker.Single)
		if err != nil {
			return err
		}
		dir := filepath.Join(work, k.Key)
		test := "package main\n\nimport \"testing\"\n\nfunc TestKernel(t *testing.T) { " + k.Name + "() }\n"
		if err := k.WriteModule(dir, c, test); err != nil {
			return err
		}
		// Build (not measured), and fill the load cache: files written
		// less than 50ms before a load are not cached.
		time.Sleep(100 * time.Millisecond)
		cmd := exec.CommandContext(ctx, heddleBin, "test", "-budget", "1", "-disable", "leak,deadlock,blocked", ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "ok  \t") {
			return fmt.Errorf("%s: heddle test: %v\n%s", k.Name, err, out)
		}
		for si, s := range speedupStrategies {
			budget := fmt.Sprint(sk.budgets[si])
			var wall, cpu [3]float64
			var line [3]string
			for p := 1; p <= 2; p++ {
				cctx, cancel := context.WithTimeout(ctx, time.Minute)
				cmd := exec.CommandContext(cctx, heddleBin, "test", "-strategy", s, "-budget", budget, "-parallel", fmt.Sprint(p),
					"-disable", "leak,deadlock,blocked", "-o", filepath.Join(work, "schedules"), ".")
				cmd.Dir = dir
				t0 := time.Now()
				out, err := cmd.CombinedOutput()
				wall[p] = time.Since(t0).Seconds()
				cancel()
				if ctx.Err() != nil {
					return ctx.Err() // interrupted
				}
				if cmd.ProcessState != nil {
					cpu[p] = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
				}
				for _, l := range strings.Split(string(out), "\n") {
					if strings.HasPrefix(l, "ok") || strings.HasPrefix(l, "FAIL") {
						line[p] = regexp.MustCompile(`\t[0-9.]+s`).ReplaceAllString(l, "")
					}
				}
				if err != nil && line[p] == "" {
					line[p] = fmt.Sprintf("error %v: %s", err, strings.TrimSpace(string(out)))
				}
			}
			same := "same"
			if line[1] != line[2] {
				same = fmt.Sprintf("DIFFERENT: %s | %s", line[1], line[2])
			}
			runs := regexp.MustCompile(`[0-9]+ runs\]|[0-9]+ runs,`).FindString(line[1])
			fmt.Printf("%-16s %-6s %-6s wall p1 %6.2fs p2 %6.2fs speedup %.2f | cpu p1 %6.2fs p2 %6.2fs | %s | %s\n",
				k.Name, s, budget, wall[1], wall[2], wall[1]/wall[2], cpu[1], cpu[2], strings.TrimRight(runs, "],"), same)
		}
	}
	fmt.Printf("load average at end: %s (%.0fs in all)\n", loadAvg(), time.Since(start).Seconds())
	return nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
