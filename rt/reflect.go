package rt

import (
	"reflect"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The channel operations of package reflect. reflect.Select and the
// channel methods of reflect.Value operate on the real channel inside the
// standard library, where heddle cannot see them: a goroutine waiting in
// reflect.Select for a rewritten send waited for real, holding heddle's
// processor, and the run was reported blocked outside heddle's control. The
// rewriter turns them into these functions, which go through the engine's
// channel and select model as the rewritten statements do, and, outside an
// exploration (or in a goroutine heddle does not control), are the reflect
// call itself.

// ReflectMakeChan replaces reflect.MakeChan: the channel is the run's own,
// as one made by a rewritten make is.
func ReflectMakeChan(typ reflect.Type, buffer int) reflect.Value {
	v := reflect.MakeChan(typ, buffer)
	if x := engine.Current(); x != nil {
		x.RegisterChan(v.UnsafePointer())
	}
	return v
}

// ReflectSelect replaces reflect.Select.
func ReflectSelect(cases []reflect.SelectCase) (chosen int, recv reflect.Value, recvOK bool) {
	x := engine.Current()
	if x == nil {
		return reflect.Select(cases)
	}
	checkSelect(cases)
	var (
		ecs        []engine.ChanCase
		index      []int // the index in cases of each of ecs
		hasDefault bool
		dflt       int
	)
	for i, c := range cases {
		switch c.Dir {
		case reflect.SelectDefault:
			hasDefault, dflt = true, i
		case reflect.SelectSend, reflect.SelectRecv:
			if !c.Chan.IsValid() {
				continue // ignored, as reflect.Select ignores it
			}
			rc := &reflectCase{ch: c.Chan, send: c.Dir == reflect.SelectSend}
			if rc.send {
				rc.v = assignable("reflect.Select", c.Send, c.Chan.Type().Elem())
			}
			ecs = append(ecs, rc)
			index = append(index, i)
		}
	}
	i := x.Select(ecs, hasDefault)
	if i < 0 {
		return dflt, reflect.Value{}, false
	}
	rc := ecs[i].(*reflectCase)
	if rc.send {
		return index[i], reflect.Value{}, false
	}
	return index[i], rc.got, rc.ok
}

// checkSelect panics as reflect.Select does on malformed cases, before the
// scheduling point: it runs reflect.Select itself on a copy of the cases
// whose channels are nil channels of the same types, with a default case,
// which returns at once. A channel reached through an unexported field,
// which reflect refuses to use, is checked apart (a nil channel made by
// reflect.Zero is exported).
func checkSelect(cases []reflect.SelectCase) {
	probe := make([]reflect.SelectCase, len(cases), len(cases)+1)
	hasDefault := false
	for i, c := range cases {
		if c.Dir == reflect.SelectDefault {
			hasDefault = true
		}
		if c.Chan.IsValid() && c.Chan.Kind() == reflect.Chan {
			mustBeExported("reflect.Select", c.Chan)
			c.Chan = reflect.Zero(c.Chan.Type())
		}
		probe[i] = c
	}
	if !hasDefault {
		probe = append(probe, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	reflect.Select(probe)
}

// mustBeExported panics as reflect does when v was obtained through an
// unexported field.
func mustBeExported(method string, v reflect.Value) {
	if v.IsValid() && !v.CanInterface() {
		panic("reflect: " + method + " using value obtained using unexported field")
	}
}

// assignable converts x to type t as reflect's channel operations do (a
// value assigned to an interface element is wrapped), panicking as they do
// when it cannot be assigned.
func assignable(context string, x reflect.Value, t reflect.Type) reflect.Value {
	mustBeExported(context, x)
	if !x.IsValid() || !x.Type().AssignableTo(t) {
		from := "<invalid Value>"
		if x.IsValid() {
			from = x.Type().String()
		}
		panic(context + ": value of type " + from + " is not assignable to type " + t.String())
	}
	v := reflect.New(t).Elem()
	v.Set(x)
	return v
}

// chanFor checks that v is a channel that method may use in direction dir,
// as reflect does, and panics with reflect's message otherwise.
func chanFor(method string, v reflect.Value, dir reflect.ChanDir, wrongDir string) {
	if v.Kind() != reflect.Chan {
		panic(&reflect.ValueError{Method: method, Kind: v.Kind()})
	}
	mustBeExported(method, v)
	if v.Type().ChanDir()&dir == 0 {
		panic(wrongDir)
	}
}

// ReflectSend replaces v.Send(x).
func ReflectSend(v, x reflect.Value) {
	x0 := engine.Current()
	if x0 == nil {
		v.Send(x)
		return
	}
	chanFor("reflect.Value.Send", v, reflect.SendDir, "reflect: send on recv-only channel")
	c := &reflectCase{ch: v, send: true, v: assignable("reflect.Value.Send", x, v.Type().Elem())}
	x0.Select([]engine.ChanCase{c}, false)
}

// ReflectTrySend replaces v.TrySend(x).
func ReflectTrySend(v, x reflect.Value) bool {
	x0 := engine.Current()
	if x0 == nil {
		return v.TrySend(x)
	}
	chanFor("reflect.Value.TrySend", v, reflect.SendDir, "reflect: send on recv-only channel")
	c := &reflectCase{ch: v, send: true, v: assignable("reflect.Value.TrySend", x, v.Type().Elem())}
	return x0.Select([]engine.ChanCase{c}, true) == 0
}

// ReflectRecv replaces v.Recv().
func ReflectRecv(v reflect.Value) (reflect.Value, bool) {
	x := engine.Current()
	if x == nil {
		return v.Recv()
	}
	chanFor("reflect.Value.Recv", v, reflect.RecvDir, "reflect: recv on send-only channel")
	c := &reflectCase{ch: v}
	x.Select([]engine.ChanCase{c}, false)
	return c.got, c.ok
}

// ReflectTryRecv replaces v.TryRecv(): when the receive cannot proceed, the
// Value is the zero Value, as reflect's.
func ReflectTryRecv(v reflect.Value) (reflect.Value, bool) {
	x := engine.Current()
	if x == nil {
		return v.TryRecv()
	}
	chanFor("reflect.Value.TryRecv", v, reflect.RecvDir, "reflect: recv on send-only channel")
	c := &reflectCase{ch: v}
	if x.Select([]engine.ChanCase{c}, true) < 0 {
		return reflect.Value{}, false
	}
	return c.got, c.ok
}

// ReflectClose replaces v.Close().
func ReflectClose(v reflect.Value) {
	x := engine.Current()
	if x == nil {
		v.Close()
		return
	}
	chanFor("reflect.Value.Close", v, reflect.SendDir, "reflect: close of receive-only channel")
	x.Close(v.UnsafePointer(), v.Close)
}

// reflectCase is a channel operation through reflect, an engine.ChanCase.
type reflectCase struct {
	ch   reflect.Value
	send bool
	v    reflect.Value // the value sent
	got  reflect.Value // the value received
	ok   bool
	// done is set when a probe of a foreign channel already performed the
	// operation (see RecvC.got).
	done bool
}

//go:norace
func (c *reflectCase) Chan() unsafe.Pointer { return c.ch.UnsafePointer() }

//go:norace
func (c *reflectCase) IsSend() bool { return c.send }

//go:norace
func (c *reflectCase) Len() int { return c.ch.Len() }

//go:norace
func (c *reflectCase) Cap() int { return c.ch.Cap() }

// Do performs the operation for real; see RecvC.Do.
func (c *reflectCase) Do() {
	if c.send {
		if !c.done {
			c.ch.Send(c.v)
		}
		return
	}
	if c.done && c.ok {
		return
	}
	c.got, c.ok = c.ch.Recv()
}

// Try performs the operation if it can proceed at once; see RecvC.Try.
//
//go:norace
func (c *reflectCase) Try() bool {
	if c.done {
		return true
	}
	if c.send {
		c.done = c.ch.TrySend(c.v)
		return c.done
	}
	v, ok := c.ch.TryRecv()
	if !v.IsValid() {
		return false
	}
	c.got, c.ok, c.done = v, ok, true
	return true
}

// ProbedClosed reports whether Try received the zero value of a closed
// channel.
//
//go:norace
func (c *reflectCase) ProbedClosed() bool { return !c.send && c.done && !c.ok }
