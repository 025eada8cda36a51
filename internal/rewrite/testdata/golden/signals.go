package signals

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func serve(stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	<-c
	signal.Stop(c)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	<-ctx.Done()
	notify := signal.Notify
	notify(c)
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	kill := syscall.Kill
	_ = kill(os.Getpid(), syscall.SIGUSR2)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(os.Interrupt)
		p.Kill()
		send := p.Signal
		_ = send(syscall.SIGUSR1)
		pr := proc{p}
		pr.Signal(syscall.SIGUSR2)
		_ = (*os.Process).Signal(p, os.Interrupt)
	}
	stop()
}

type proc struct{ *os.Process }
