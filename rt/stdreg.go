package rt

import (
	"unsafe"

	"heddle.dev/internal/engine"
)

// Registries and settings of the standard library (mime's types,
// expvar's names, database/sql's drivers, the GC percent, an
// http.ServeMux's patterns) are kept under locks of the standard library,
// which is not rewritten: without a step, a goroutine's registration and
// another's lookup were independent for DPOR, which explored one order
// only (conform TestMimeAddVsLookup, TestExpvarPublishVsGet,
// TestSQLRegisterVsDrivers, TestSetGCPercentOrder,
// TestServeMuxHandleVsHandler: natively the lookup sees the entry or not,
// heddle 2 runs, "exhausted", never the entry). The rewriter now makes
// each call of their functions a step: an atomic read or write of one
// object standing for the registry (StdR, StdW), or of the ServeMux
// itself (StdAtW, and AtomicW/AtomicR for its methods). rt does not
// import these packages: the rewritten call passes the function.

// Registry names a registry or setting of the standard library whose
// accesses are steps.
type Registry uint8

// The registries of the standard library the rewriter knows.
const (
	RegMime        Registry = iota // mime's extension types
	RegExpvar                      // expvar's published names
	RegSQLDrivers                  // database/sql's drivers
	RegGCPercent                   // runtime/debug.SetGCPercent
	RegMemoryLimit                 // runtime/debug.SetMemoryLimit
	RegMaxStack                    // runtime/debug.SetMaxStack
	RegMaxThreads                  // runtime/debug.SetMaxThreads
	numRegistries
)

// registryObjs are the registries' objects for DPOR: only their addresses
// are used.
var registryObjs [numRegistries]byte

// stdStep is the step of an access of the object at p, left out while the
// running goroutine is alone (engine.Exec.Alone).
func stdStep(p unsafe.Pointer, op engine.OpKind) {
	if x := engine.Current(); x != nil && !x.Alone() {
		x.Access(p, op)
	}
}

// StdR is a read of registry reg, then f: the rewriter turns mime.TypeByExtension(ext)
// into rt.StdR(rt.RegMime, mime.TypeByExtension)(ext).
func StdR[F any](reg Registry, f F) F {
	stdStep(unsafe.Pointer(&registryObjs[reg]), engine.OpAtomicLoad)
	return f
}

// StdW is StdR for a call that writes the registry.
func StdW[F any](reg Registry, f F) F {
	stdStep(unsafe.Pointer(&registryObjs[reg]), engine.OpAtomicWrite)
	return f
}

// StdAtW is StdW on the object at p (http.Handle writes
// http.DefaultServeMux).
func StdAtW[T any, F any](p *T, f F) F {
	stdStep(unsafe.Pointer(p), engine.OpAtomicWrite)
	return f
}
