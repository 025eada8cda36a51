package synctests

import (
	"testing"
	"testing/synctest"
	"time"
)

// synctest.Test and Wait, called directly and as values.
func TestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := make(chan int)
		go func() {
			time.Sleep(time.Second)
			c <- 1
		}()
		synctest.Wait()
		if v := <-c; v != 1 {
			t.Fatal(v)
		}
	})
	wait := synctest.Wait
	run := synctest.Test
	_, _ = wait, run
}
