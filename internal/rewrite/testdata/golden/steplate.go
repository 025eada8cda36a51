package steplate

import (
	"log"
	"mime"
	"sync"
	"sync/atomic"
)

type box struct {
	atomic.Int32
	m sync.Map
}

func get(ch chan int32) int32 { return <-ch }

func conditions(n *atomic.Int32, b *box, ch chan int32, ok bool) int32 {
	if n.CompareAndSwap(0, <-ch) {
		return 1
	}
	if v := n.Swap(<-ch); v > 0 {
		return v
	}
	for n.Load() < 10 && n.CompareAndSwap(n.Load(), <-ch) {
	}
	for i := n.Add(get(ch)); i < 3; i = n.Add(<-ch) {
	}
	switch n.Swap(<-ch) {
	case 1:
	}
	if ok || b.CompareAndSwap(1, int32(len(ch))) {
		return 2
	}
	b.m.Store(n.Swap(<-ch), 1)
	x := n.Load() + <-ch
	y := <-ch + n.Swap(<-ch)
	z := []int32{n.Swap(<-ch), atomic.AddInt32(new(int32), <-ch)}
	log.Println(n.Swap(<-ch))
	_ = mime.AddExtensionType(".x", string(<-make(chan string)))
	if err := mime.AddExtensionType(".y", string(<-make(chan string))); err != nil {
		return 3
	}
	var l *log.Logger
	if ok {
		l.Printf("%d %d", <-ch, 1)
	}
	// Output counts frames: left as it is.
	if err := l.Output(2, string(<-make(chan string))); err != nil {
		return 4
	}
	return x + y + z[0] + n.Swap(int32(3))
}

func generic[T any](p *atomic.Pointer[T], ch chan *T) bool {
	return p.CompareAndSwap(nil, <-ch) || p.CompareAndSwap(nil, <-ch)
}

func local(ch chan int32) {
	type counter struct{ atomic.Int32 }
	var c counter
	for c.CompareAndSwap(0, <-ch) {
	}
}
