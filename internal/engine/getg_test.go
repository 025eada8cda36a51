package engine

import "testing"

// getg identifies goroutines: stable within one, distinct between live ones.
func TestGetgIdentifiesGoroutines(t *testing.T) {
	me := getg()
	if me == 0 || getg() != me {
		t.Fatalf("getg() = %#x, then %#x", me, getg())
	}
	const n = 8
	ids := make(chan uintptr, n)
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			ids <- getg()
			<-release // stay alive, so that no descriptor is reused
		}()
	}
	seen := map[uintptr]bool{me: true}
	for i := 0; i < n; i++ {
		id := <-ids
		if seen[id] {
			t.Fatalf("two live goroutines share the identity %#x", id)
		}
		seen[id] = true
	}
	close(release)
}
