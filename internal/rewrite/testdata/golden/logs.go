package logs

import (
	"log"
)

// A log entry is a step: Logger methods that write one and the package's
// functions (Fatal was already replaced), and so is a use of its settings
// (prefix, flags, output).

type server struct {
	*log.Logger
}

func f(l *log.Logger, s server, v log.Logger) {
	l.Printf("x %d", 1)
	l.Output(2, "y")
	s.Println("z")
	v.Print("w")
	log.Print("a")
	log.Printf("%s", "b")
	p := log.Println
	p("c")
	_ = l.Prefix()
	l.SetPrefix("p")
	log.SetFlags(0)
	_ = log.Writer()
}
