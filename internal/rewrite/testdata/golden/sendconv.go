package sendconv

import (
	"errors"
	"io"
)

type errT string

func (e errT) Error() string { return string(e) }

const ErrClosed errT = "closed"

var ErrVar = errors.New("var")

type errChan chan error

type kind int

const (
	kindA kind = iota
	kindB
)

// Typed constants, untyped constants and nil sent on channels whose element
// type differs from the value's.
func sends() {
	errc := make(chan error, 8)
	errc <- ErrClosed
	errc <- nil
	errc <- ErrVar
	errc <- io.EOF
	var ec errChan = make(errChan, 2)
	ec <- ErrClosed
	ec <- nil
	anyc := make(chan any, 4)
	anyc <- 1
	anyc <- "s"
	anyc <- kindB
	anyc <- nil
	kc := make(chan kind, 2)
	kc <- kindA
	kc <- 1
	fc := make(chan float64, 1)
	fc <- 1
	select {
	case errc <- ErrClosed:
	case anyc <- kindA:
	default:
	}
	go func() { errc <- ErrClosed }()
}
