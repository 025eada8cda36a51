package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// k8sJob is the part of a Kubernetes Job that heddle's contract rests on.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name       string   `yaml:"name"`
					WorkingDir string   `yaml:"workingDir"`
					Command    []string `yaml:"command"`
					Args       []string `yaml:"args"`
					Env        []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestK8sIndexedJob parses deploy/k8s/heddle-job.yaml, checks that it is
// an Indexed Job whose completion index is the shard of as many shards as
// completions, with results on a mounted volume; then runs its
// container's command, as each pod would, for every index of a small
// exploration, and checks that the merge is complete and equals one
// process.
func TestK8sIndexedJob(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../deploy/k8s/heddle-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(false)
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("deploy/k8s/heddle-job.yaml: %v", err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion %q kind %q, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed (JOB_COMPLETION_INDEX is set only then)", s.CompletionMode)
	}
	if s.Parallelism < 1 || s.Completions <= s.Parallelism {
		t.Errorf("completions %d, parallelism %d: want completions far above parallelism, so that the cluster balances", s.Completions, s.Parallelism)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != "OnFailure" && pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q: a Job's pods need OnFailure or Never", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if n, err := strconv.Atoi(env["HEDDLE_SHARDS"]); err != nil || n != s.Completions {
		t.Errorf("HEDDLE_SHARDS is %q, want the completions, %d: every index must be a shard of the same n", env["HEDDLE_SHARDS"], s.Completions)
	}
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
		t.Fatalf("command %q args %q: want /bin/sh -c SCRIPT", c.Command, c.Args)
	}
	script := c.Args[0]
	if !strings.Contains(script, `-shard "$JOB_COMPLETION_INDEX/$HEDDLE_SHARDS"`) {
		t.Errorf("the script does not pass -shard $JOB_COMPLETION_INDEX/$HEDDLE_SHARDS:\n%s", script)
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
	}
	results := ""
	for _, m := range c.VolumeMounts {
		if volumes[m.Name] && strings.Contains(script, `-result "`+m.MountPath+`/shard-$JOB_COMPLETION_INDEX.json"`) {
			results = m.MountPath
		}
	}
	if results == "" {
		t.Fatalf("the script's -result is not a file named by the index on a mounted volume:\n%s", script)
	}

	// Every pod's command, run here for each index of 3 shards.
	e := newShardEnv(t, randomModule)
	const n = 3
	flags := "-strategy random -budget 60 -keep-going -o " + filepath.Join(e.dir, "sched")
	dir := filepath.Join(e.dir, "results")
	os.MkdirAll(dir, 0o777)
	var files []string
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sh", "-c", strings.ReplaceAll(script, results+"/", dir+"/"))
		cmd.Dir = filepath.Join(e.dir, "m")
		cmd.Env = append(e.env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), fmt.Sprintf("HEDDLE_SHARDS=%d", n), "HEDDLE_FLAGS="+flags+" ./...")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("index %d: the pod's command failed (%v): the Job would retry a shard that found bugs\n%s", i, err, out)
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
	}
	m := e.merged(files)
	if !m.Complete {
		t.Errorf("merged: %s", m.Statement)
	}
	sameOutcome(t, "Indexed Job", e.sequential("-strategy", "random", "-budget", "60", "-keep-going"), outcomeOf(t, m), true)
}
