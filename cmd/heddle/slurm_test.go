package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlurm is the end-to-end test of heddle on Slurm, opt-in with
// HEDDLE_SLURM=1 (CI sets it; it needs root, and installs Debian's
// slurm-wlm with apt-get if it is missing). It starts a one-node Slurm
// with deploy/slurm/start.sh, submits deploy/slurm/heddle-shards.sbatch
// as an array of n tasks (-shard $SLURM_ARRAY_TASK_ID/n), waits for it,
// merges the result files, and checks that the merge equals one heddle
// test process.
func TestSlurm(t *testing.T) {
	if os.Getenv("HEDDLE_SLURM") != "1" {
		t.Skip("HEDDLE_SLURM=1 runs the Slurm end-to-end test (as root; installs slurm-wlm if missing)")
	}
	e := newShardEnv(t, randomModule)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(e.dir, "slurm")
	start := exec.Command(filepath.Join(repo, "deploy/slurm/start.sh"), state)
	start.Stderr = os.Stderr
	out, err := start.Output()
	if err != nil {
		t.Fatalf("deploy/slurm/start.sh: %v", err)
	}
	defer func() {
		stop := exec.Command(filepath.Join(repo, "deploy/slurm/stop.sh"), state)
		if b, err := stop.CombinedOutput(); err != nil {
			t.Errorf("deploy/slurm/stop.sh: %v\n%s", err, b)
		}
	}()
	conf := strings.Trim(strings.TrimPrefix(strings.TrimSpace(string(out)), "export SLURM_CONF="), "'")
	if _, err := os.Stat(conf); err != nil {
		t.Fatalf("start.sh printed %q, not the line that sets SLURM_CONF", out)
	}

	const n = 4
	flags := []string{"-strategy", "random", "-budget", "90", "-keep-going", "-o", filepath.Join(e.dir, "sched")}
	results := filepath.Join(e.dir, "results")
	logs := filepath.Join(e.dir, "logs")
	os.MkdirAll(logs, 0o777)
	args := append([]string{"--wait", fmt.Sprintf("--array=0-%d", n-1), "--chdir=" + filepath.Join(e.dir, "m"),
		"--output=" + filepath.Join(logs, "shard-%a.log"),
		filepath.Join(repo, "deploy/slurm/heddle-shards.sbatch")}, append(flags, "./...")...)
	sbatch := exec.Command("sbatch", args...)
	sbatch.Env = append(e.env, "SLURM_CONF="+conf, "HEDDLE="+e.heddle, "HEDDLE_RESULTS="+results)
	b, err := sbatch.CombinedOutput()
	t.Logf("sbatch %s:\n%s", strings.Join(args, " "), b)
	var files []string
	for i := 0; i < n; i++ {
		log, lerr := os.ReadFile(filepath.Join(logs, fmt.Sprintf("shard-%d.log", i)))
		if lerr != nil {
			t.Errorf("task %d wrote no log: %v", i, lerr)
		} else if !strings.Contains(string(log), fmt.Sprintf("task %d of %d on", i, n)) {
			t.Errorf("task %d's log does not show it ran as task %d of an array of %d:\n%s", i, i, n, log)
		}
		if err != nil {
			t.Logf("task %d's log:\n%s", i, log)
		}
		files = append(files, filepath.Join(results, fmt.Sprintf("shard-%d.json", i)))
	}
	if err != nil {
		t.Fatalf("sbatch --wait: %v", err)
	}
	m := e.merged(files)
	if !m.Complete {
		t.Errorf("merged Slurm shards: %s", m.Statement)
	}
	seq := e.sequential(flags[:len(flags)-2]...)
	if len(seq.Bugs) < 2 {
		t.Fatalf("one process found %d bugs, want 2 or more", len(seq.Bugs))
	}
	sameOutcome(t, "Slurm array", seq, outcomeOf(t, m), true)
}
