package timectx

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"time"
)

func f(parent context.Context) (time.Duration, error) {
	start := time.Now()
	time.Sleep(10 * time.Millisecond)
	t := time.NewTimer(time.Second)
	if !t.Stop() {
		<-t.C
	}
	t.Reset(time.Minute)
	tk := time.NewTicker(time.Millisecond)
	<-tk.C
	tk.Reset(2 * time.Millisecond)
	tk.Stop()
	af := time.AfterFunc(time.Second, func() {})
	af.Stop()
	<-time.After(time.Millisecond)
	tick := time.Tick(time.Hour)
	_ = tick
	_ = time.Until(start.Add(time.Hour))
	sleep := time.Sleep
	sleep(1)
	d := start.Sub(start) + time.Duration(3)
	_ = d.String()

	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	ctx2, cancel2 := context.WithTimeout(ctx, time.Second)
	defer cancel2()
	ctx3, cancel3 := context.WithDeadline(ctx2, start.Add(time.Minute))
	defer cancel3()
	ctx4, cancel4 := context.WithCancelCause(ctx3)
	cancel4(errors.New("why"))
	ctx5, cancel5 := context.WithTimeoutCause(ctx, time.Second, errors.New("slow"))
	defer cancel5()
	ctx6, cancel6 := context.WithDeadlineCause(ctx5, start, errors.New("late"))
	defer cancel6()
	stop := context.AfterFunc(ctx6, func() {})
	stop()
	runtime.Gosched()
	runtime.GC()
	if runtime.NumGoroutine() > 100 {
		runtime.Goexit()
	}
	// What a program sees of its stack leaves heddle's frames out.
	if _, file, _, ok := runtime.Caller(1); ok && file == "" {
		pcs := make([]uintptr, 10)
		_ = runtime.CallersFrames(pcs[:runtime.Callers(0, pcs)])
	}
	// Allocation counts leave heddle's scheduling out.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.Mallocs == 0 {
		debug.PrintStack()
		_ = debug.Stack()
	}
	<-ctx6.Done()
	return time.Since(start), context.Cause(ctx4)
}
