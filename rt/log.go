package rt

import (
	"fmt"
	"io"
	"log"
	"unsafe"

	"heddle.dev/internal/engine"
)

// A log.Logger serializes its writes with a lock of package log, which is
// not rewritten: without a step, two goroutines' log calls were
// independent for DPOR, which explored one order of their lines only
// (conform TestLoggerTwoGoroutines). Every call that writes an entry is
// now a step, a write of the logger (an atomic write: the entry is written
// whole, under the logger's lock), so the orders of two goroutines'
// entries are explored.

// logStep is the step of a log entry written by l.
func logStep(l *log.Logger) {
	if x := engine.Current(); x != nil {
		x.Access(unsafe.Pointer(l), engine.OpAtomicWrite)
	}
}

// LoggerW replaces the receiver l of a call of a *log.Logger method that
// writes an entry (Print, Printf, Println, Panic, Panicf, Panicln, Output)
// or sets or reads its output, prefix or flags:
// the call is a step, then the method runs on l.
func LoggerW(l *log.Logger) *log.Logger {
	logStep(l)
	return l
}

// LogPrint replaces log.Print.
func LogPrint(v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprint(v...))
}

// LogPrintf replaces log.Printf.
func LogPrintf(format string, v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprintf(format, v...))
}

// LogPrintln replaces log.Println.
func LogPrintln(v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprintln(v...))
}

// LogPanic replaces log.Panic.
func LogPanic(v ...any) {
	logStep(log.Default())
	s := fmt.Sprint(v...)
	log.Output(2, s)
	panic(s)
}

// LogPanicf replaces log.Panicf.
func LogPanicf(format string, v ...any) {
	logStep(log.Default())
	s := fmt.Sprintf(format, v...)
	log.Output(2, s)
	panic(s)
}

// LogPanicln replaces log.Panicln.
func LogPanicln(v ...any) {
	logStep(log.Default())
	s := fmt.Sprintln(v...)
	log.Output(2, s)
	panic(s)
}

// LogOutput replaces log.Output.
func LogOutput(calldepth int, s string) error {
	logStep(log.Default())
	return log.Output(calldepth+1, s)
}

// LogSetOutput replaces log.SetOutput: a step, a write of the standard
// logger, as its entries are (its writer, prefix and flags are atomics of
// package log).
func LogSetOutput(w io.Writer) {
	logStep(log.Default())
	log.SetOutput(w)
}

// LogSetPrefix replaces log.SetPrefix.
func LogSetPrefix(prefix string) {
	logStep(log.Default())
	log.SetPrefix(prefix)
}

// LogSetFlags replaces log.SetFlags.
func LogSetFlags(flag int) {
	logStep(log.Default())
	log.SetFlags(flag)
}

// LogPrefix replaces log.Prefix.
func LogPrefix() string {
	logStep(log.Default())
	return log.Prefix()
}

// LogFlags replaces log.Flags.
func LogFlags() int {
	logStep(log.Default())
	return log.Flags()
}

// LogWriter replaces log.Writer.
func LogWriter() io.Writer {
	logStep(log.Default())
	return log.Writer()
}
