package rt_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// odporOutcomes explores body (which uses a pipe made by rt.Pipe, say) with
// optimal DPOR to the end and returns its outcomes; no run may detach a
// goroutine or report a bug: every wait of the model is a scheduling
// point, so the search is exhaustive.
func odporOutcomes(t *testing.T, body func() string) string {
	t.Helper()
	outcomes := map[string]bool{}
	s := strategy.NewOptimalDPOR()
	for run := 1; s.Begin(run); run++ {
		if run > 20000 {
			t.Fatal("odpor did not finish within 20000 runs")
		}
		var out string
		res := engine.Run(engine.Config{Trace: true}, s, func() { out = body() })
		s.End(res)
		if res.Internal != "" {
			t.Fatalf("run %d: internal error: %s", run, res.Internal)
		}
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if res.Detaches != 0 {
			t.Fatalf("run %d: %d goroutines detached", run, res.Detaches)
		}
		outcomes[out] = true
	}
	return keys(outcomes)
}

// Two goroutines write to a pipe: the reader gets either write first
// (conform TestPipeTwoWriters: natively "cdab" in about 5% of runs). With
// io.Pipe itself, whose writers wait natively, heddle saw "abcd" only.
func TestPipeModelTwoWriters(t *testing.T) {
	got := odporOutcomes(t, func() string {
		r, w := rt.Pipe()
		done := rt.MakeChan[chan struct{}](0)
		for _, s := range []string{"ab", "cd"} {
			s := s
			rt.Go(func() {
				w.Write([]byte(s))
				rt.Send(done, struct{}{})
			})
		}
		rt.Go(func() {
			rt.Recv(done)
			rt.Recv(done)
			w.Close()
		})
		b, err := io.ReadAll(r)
		return fmt.Sprintf("%s %v", b, err)
	})
	if want := "abcd <nil> | cdab <nil>"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// A short Read takes part of a write; the writer waits for the rest, and
// the reader's CloseWithError ends the write with its error.
func TestPipeModelPartialReadClose(t *testing.T) {
	got := odporOutcomes(t, func() string {
		r, w := rt.Pipe()
		res := rt.MakeChan[chan string](1)
		rt.Go(func() {
			n, err := w.Write([]byte("abcd"))
			rt.Send(res, fmt.Sprintf("wrote %d %v", n, err))
		})
		buf := make([]byte, 2)
		n, err := r.Read(buf)
		r.CloseWithError(errors.New("stop"))
		return fmt.Sprintf("read %q %v, %s", buf[:n], err, rt.Recv(res))
	})
	if want := `read "ab" <nil>, wrote 2 stop`; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// Close of both ends racing a Read: the reader sees the writer's error
// (EOF) or io.ErrClosedPipe, as io's pipe gives.
func TestPipeModelCloseErrors(t *testing.T) {
	got := odporOutcomes(t, func() string {
		r, w := rt.Pipe()
		rt.Go(func() { w.CloseWithError(errors.New("werr")) })
		rt.Go(func() { r.Close() })
		_, err := r.Read(make([]byte, 1))
		_, werr := w.Write([]byte("x"))
		return fmt.Sprintf("%v / %v", err, werr)
	})
	if want := "io: read/write on closed pipe / io: read/write on closed pipe | werr / io: read/write on closed pipe"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// Outside an exploration the model behaves as io.Pipe.
func TestPipeModelNative(t *testing.T) {
	r, w := rt.Pipe()
	go func() {
		fmt.Fprint(w, "hello")
		w.Close()
	}()
	b, err := io.ReadAll(r)
	if string(b) != "hello" || err != nil {
		t.Fatalf("read %q %v", b, err)
	}
	if _, err := w.Write([]byte("x")); err != io.ErrClosedPipe {
		t.Fatalf("write after close: %v", err)
	}
}
