package rt

import "reflect"

// nativeCase lets Select run outside an exploration through reflect.Select.
type nativeCase interface {
	native() reflect.SelectCase
	store(v reflect.Value, ok bool)
}

func (c *RecvC[T]) native() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.ch)}
}

func (c *RecvC[T]) store(v reflect.Value, ok bool) {
	if ok {
		// Set, not v.Interface().(T): T may be an interface type and the
		// value received nil.
		reflect.ValueOf(&c.V).Elem().Set(v)
	}
	c.OK = ok
}

func (c *SendC[T]) native() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(c.ch), Send: reflect.ValueOf(&c.v).Elem()}
}

func (c *SendC[T]) store(reflect.Value, bool) {}

func nativeSelect(hasDefault bool, cases []Case) int {
	sc := make([]reflect.SelectCase, 0, len(cases)+1)
	for _, c := range cases {
		sc = append(sc, c.(nativeCase).native())
	}
	if hasDefault {
		sc = append(sc, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(sc)
	if i == len(cases) {
		return -1
	}
	cases[i].(nativeCase).store(v, ok)
	return i
}
