package tricky

import (
	"sync"
	. "time"
)

type E struct{}

func (E) Error() string { return "e" }

type Guarded struct {
	sync.Mutex
	wg sync.WaitGroup
}

func f(g *Guarded, errs chan error, ints chan int) error {
	g.Lock()
	go g.Unlock()
	g.wg.Add(1)
	go g.wg.Done()
	Sleep(Millisecond)
	var timeout = After(Second)
	select {
	case errs <- E{}:
	case ints <- 1 << 2:
	case <-timeout:
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			_ = r
		}
	}()
	return <-errs
}

func terminating(ch chan int) int {
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return 0
			}
			return v
		}
	}
}

func nested(ch chan chan int) {
	for inner := range ch {
		go func() {
			for v := range inner {
				_ = v
			}
		}()
	}
}
