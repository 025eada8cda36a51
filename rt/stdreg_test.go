package rt_test

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"testing"

	"heddle.dev/rt"
)

// A goroutine registers a MIME type while another looks it up: optimal
// DPOR reaches both (conform TestMimeAddVsLookup). Before the rewriter
// made mime's functions steps, they were independent: the lookup before
// the registration only.
func TestStdRegistryIsAStep(t *testing.T) {
	n := 0
	got := odporOutcomes(t, func() string {
		n++
		ext := fmt.Sprintf(".heddlestdreg%d", n)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.StdW(rt.RegMime, mime.AddExtensionType)(ext, "application/x-heddle")
			rt.Send(done, true)
		})
		v := rt.StdR(rt.RegMime, mime.TypeByExtension)(ext)
		rt.Recv(done)
		return fmt.Sprintf("%q", v)
	})
	if want := `"" | "application/x-heddle"`; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// http.Handle's step is on http.DefaultServeMux, the object of the mux's
// methods (conform TestServeMuxHandleVsHandler).
func TestStdServeMuxIsAStep(t *testing.T) {
	n := 0
	got := odporOutcomes(t, func() string {
		n++
		p := fmt.Sprintf("/heddle-stdreg/%d", n)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.StdAtW(http.DefaultServeMux, http.HandleFunc)(p, func(http.ResponseWriter, *http.Request) {})
			rt.Send(done, true)
		})
		_, pat := rt.AtomicR(http.DefaultServeMux).Handler(&http.Request{Method: "GET", Host: "h", URL: &url.URL{Path: p}})
		rt.Recv(done)
		return fmt.Sprint(pat != "")
	})
	if want := "false | true"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
