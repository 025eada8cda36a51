package reflectiter

import (
	"iter"
	"reflect"
)

type holder struct {
	reflect.Value
}

// reflect's channel operations and iter.Pull, in the ways code writes them.
func reflectOps(ch chan int, h holder, pv *reflect.Value) {
	v := reflect.ValueOf(ch)
	v.Send(reflect.ValueOf(1))
	x, ok := v.Recv()
	_, _ = x, ok
	_ = v.TrySend(reflect.ValueOf(2))
	if y, ok := v.TryRecv(); ok {
		_ = y
	}
	reflect.ValueOf(ch).Send(reflect.ValueOf(3))
	h.Send(reflect.ValueOf(4))
	pv.Close()
	_ = (*reflect.Value).TrySend(pv, reflect.ValueOf(5))
	recv := v.Recv
	_, _ = recv()
	reflect.Value.Close(v)
	mc := reflect.MakeChan(reflect.TypeOf(ch), 1)
	i, r, rok := reflect.Select([]reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: mc},
		{Dir: reflect.SelectDefault},
	})
	_, _, _ = i, r, rok
	sel := reflect.Select
	_, _, _ = sel(nil)
	// Not channel operations: left alone.
	_ = v.Len()
	_ = reflect.ValueOf(3).Int()
}

func pulls(seq iter.Seq[int], seq2 iter.Seq2[string, int]) {
	next, stop := iter.Pull(seq)
	defer stop()
	_, _ = next()
	next2, stop2 := iter.Pull2[string, int](seq2)
	defer stop2()
	_, _, _ = next2()
}
