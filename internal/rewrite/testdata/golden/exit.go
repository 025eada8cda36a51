package exit

import (
	"flag"
	"log"
	"os"
)

var osExit = os.Exit // a variable for tests to replace: rewritten too

type server struct {
	*log.Logger
	name string
}

func run(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	port := fs.Int("port", 80, "port")
	if err := fs.Parse(args); err != nil {
		log.Fatalf("parse: %v", err)
	}
	flag.Parse()
	if *port == 0 {
		log.Fatal("no port")
	}
	if *port < 0 {
		log.Fatalln("negative port", *port)
	}
	l := log.New(os.Stderr, "serve: ", 0)
	if *port > 65535 {
		l.Fatalf("port %d", *port)
	}
	var v log.Logger
	v.Fatal("value receiver")
	s := &server{Logger: l}
	s.Fatalln("embedded")
	fatal := l.Fatal
	fatal("method value")
	defer os.Exit(3)
	osExit(0)
	os.Exit(1)
}
