package rt

import (
	"flag"
	"fmt"
	"log"
	"os"

	"heddle.dev/internal/engine"
)

// Exit replaces os.Exit(code). During an exploration it ends the run at
// once instead of the process: code 0 is a normal end (with no check for
// leaked goroutines, since the process would be gone), any other code is a
// bug, "exit status N". Outside an exploration it is os.Exit.
func Exit(code int) {
	if x := engine.Current(); x != nil {
		x.Exit(code)
		return
	}
	os.Exit(code)
}

// Fatal replaces log.Fatal: log.Print, then Exit(1).
func Fatal(v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprint(v...))
	Exit(1)
}

// Fatalf replaces log.Fatalf: log.Printf, then Exit(1).
func Fatalf(format string, v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprintf(format, v...))
	Exit(1)
}

// Fatalln replaces log.Fatalln: log.Println, then Exit(1).
func Fatalln(v ...any) {
	logStep(log.Default())
	log.Output(2, fmt.Sprintln(v...))
	Exit(1)
}

// LoggerFatal replaces l.Fatal(v...) on a *log.Logger.
func LoggerFatal(l *log.Logger, v ...any) {
	logStep(l)
	l.Output(2, fmt.Sprint(v...))
	Exit(1)
}

// LoggerFatalf replaces l.Fatalf(format, v...) on a *log.Logger.
func LoggerFatalf(l *log.Logger, format string, v ...any) {
	logStep(l)
	l.Output(2, fmt.Sprintf(format, v...))
	Exit(1)
}

// LoggerFatalln replaces l.Fatalln(v...) on a *log.Logger.
func LoggerFatalln(l *log.Logger, v ...any) {
	logStep(l)
	l.Output(2, fmt.Sprintln(v...))
	Exit(1)
}

// FlagParse replaces flag.Parse(). flag.CommandLine exits the process on a
// bad flag (status 2) or -h (status 0) from inside package flag; during an
// exploration FlagParse parses with the same messages and ends the run
// with the same status through Exit instead. Outside an exploration it is
// flag.Parse.
func FlagParse() {
	if engine.Current() == nil {
		flag.Parse()
		return
	}
	FlagSetParse(flag.CommandLine, os.Args[1:])
}

// FlagSetParse replaces fs.Parse(args) on a *flag.FlagSet. For a set made
// with flag.ExitOnError it does, during an exploration, what FlagParse
// does; otherwise it is fs.Parse(args).
func FlagSetParse(fs *flag.FlagSet, args []string) error {
	if engine.Current() == nil || fs.ErrorHandling() != flag.ExitOnError {
		return fs.Parse(args)
	}
	name := fs.Name()
	fs.Init(name, flag.ContinueOnError)
	err := fs.Parse(args)
	fs.Init(name, flag.ExitOnError)
	switch {
	case err == flag.ErrHelp:
		Exit(0)
	case err != nil:
		Exit(2)
	}
	return err
}
