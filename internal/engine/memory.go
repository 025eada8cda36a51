package engine

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"unsafe"
)

// memoryCheckEvery is the number of steps between two looks at the heap
// when Config.MaxHeap is set: reading it costs about a microsecond.
const memoryCheckEvery = 4096

// deadlineCheckEvery is the number of steps between two looks at the wall
// clock when Config.Deadline is set (time.Now costs tens of nanoseconds).
// Once every memoryCheckEvery steps was too seldom: a step of a run with a
// thousand goroutines (ants' TestAntsPoolWaitToGetWorker, on a loaded
// machine) can take a millisecond, and a 1s budget ended after 4.5s.
const deadlineCheckEvery = 64

// heapSamples are the heap's objects, live and garbage not yet swept (a
// cheap first look), and the heap that the last collection found live.
var heapSamples = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}

// overMemory reports, when the heap holds more than Config.MaxHeap bytes,
// what the run holds and what grew the most: its recorded trace (steps and
// their vector clocks), its goroutines, its timers, or what is left, the
// program's own data and the exploration's state.
//
//go:norace
func (e *Exec) overMemory() string {
	if e.cfg.MaxHeap == 0 {
		return ""
	}
	metrics.Read(heapSamples)
	if heapSamples[0].Value.Kind() != metrics.KindUint64 || heapSamples[0].Value.Uint64() <= e.cfg.MaxHeap {
		return ""
	}
	// Over the bound, garbage included: collect, and look at what is live.
	runtime.GC()
	metrics.Read(heapSamples)
	if heapSamples[1].Value.Kind() != metrics.KindUint64 {
		return ""
	}
	heap := heapSamples[1].Value.Uint64()
	if heap <= e.cfg.MaxHeap {
		return ""
	}
	var trace uint64
	for i := range e.res.Trace {
		trace += uint64(unsafe.Sizeof(Step{})) + uint64(cap(e.res.Trace[i].VC))*uint64(unsafe.Sizeof(VCEntry{}))
	}
	trace += uint64(cap(e.res.Choices)) * uint64(unsafe.Sizeof(Choice{}))
	const perG = 8 << 10 // a goroutine's least stack and its records
	gs := uint64(len(e.gs)) * perG
	timers := uint64(len(e.timers)) * uint64(unsafe.Sizeof(Timer{}))
	rest := uint64(0)
	if heap > trace+gs+timers {
		rest = heap - trace - gs - timers
	}
	what := "the program's own data or the exploration's state (" + mib(rest) + ")"
	switch {
	case trace >= gs && trace >= timers && trace >= rest:
		what = "the run's recorded trace: " + strconv.Itoa(len(e.res.Trace)) + " steps with the vector clocks of " + strconv.Itoa(len(e.gs)) + " goroutines (" + mib(trace) + ")"
	case gs >= timers && gs >= rest:
		what = "its goroutines: " + strconv.Itoa(len(e.gs)) + " created, " + strconv.Itoa(e.live) + " alive (" + mib(gs) + ")"
	case timers >= rest:
		what = "its timers: " + strconv.Itoa(len(e.timers)) + " active (" + mib(timers) + ")"
	}
	return "the heap reached " + mib(heap) + " at step " + strconv.Itoa(e.steps) + ", over the bound of " + mib(e.cfg.MaxHeap) + "; what grew most: " + what
}

func mib(n uint64) string { return strconv.FormatUint(n>>20, 10) + " MiB" }
