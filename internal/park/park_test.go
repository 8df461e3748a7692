package park

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tracker stands for the server's recorder: it learns the parked status.
type tracker struct {
	http.ResponseWriter
	status chan int
}

func (t *tracker) Parked() func(int) { return func(s int) { t.status <- s } }

func (t *tracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }

type fixture struct {
	base    string
	lot     *Lot
	release chan struct{} // closing it lets parked answers proceed
	status  chan int      // statuses the tracker saw
	dials   atomic.Int32
	client  *http.Client
}

// serve runs an http.Server on a park Listener: /park parks and answers 202
// once released, /panic parks and panics, anything else answers 200 at once.
func serve(t *testing.T) *fixture {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewListener(tcp)
	f := &fixture{base: "http://" + tcp.Addr().String(), lot: NewLot(ln), release: make(chan struct{}), status: make(chan int, 10)}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = &tracker{ResponseWriter: w, status: f.status}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.URL.Path {
		case "/park":
			if !f.lot.Park(w, r, func(w http.ResponseWriter) {
				<-f.release
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusAccepted)
				io.WriteString(w, `{"parked":true}`)
			}) {
				t.Error("Park refused an HTTP/1.1 request")
			}
		case "/panic":
			f.lot.Park(w, r, func(http.ResponseWriter) { panic("boom") })
		default:
			io.WriteString(w, "plain")
		}
	})
	srv := &http.Server{Handler: h, ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		f.lot.Wait()
	})
	d := &net.Dialer{}
	f.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			f.dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
	}}
	t.Cleanup(f.client.CloseIdleConnections)
	return f
}

func (f *fixture) get(t *testing.T, path string, close bool) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", f.base+path, nil)
	req.Close = close
	res, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

func TestParkedAnswerKeepsTheConnection(t *testing.T) {
	f := serve(t)
	close(f.release)
	res, body := f.get(t, "/park", false)
	if res.StatusCode != http.StatusAccepted || body != `{"parked":true}` {
		t.Fatalf("parked answer = %d %q", res.StatusCode, body)
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Content-Type") != "application/json" ||
		res.Header.Get("Date") == "" || res.Close {
		t.Fatalf("parked answer headers = %v (close %v)", res.Header, res.Close)
	}
	if got := <-f.status; got != http.StatusAccepted {
		t.Fatalf("tracker saw %d, want 202", got)
	}
	// The connection went back to the server, which serves the next
	// request (parked or not) on it.
	for _, path := range []string{"/plain", "/park", "/plain"} {
		if res, body := f.get(t, path, false); res.StatusCode/100 != 2 || body == "" {
			t.Fatalf("%s after a parked answer: %d %q", path, res.StatusCode, body)
		}
	}
	if n := f.dials.Load(); n != 1 {
		t.Fatalf("%d connections for four requests, want one", n)
	}
}

func TestParkedAnswerWaits(t *testing.T) {
	f := serve(t)
	done := make(chan string, 1)
	go func() {
		_, body := f.get(t, "/park", false)
		done <- body
	}()
	select {
	case b := <-done:
		t.Fatalf("answered %q before the answer was ready", b)
	case <-time.After(50 * time.Millisecond):
	}
	close(f.release)
	if b := <-done; b != `{"parked":true}` {
		t.Fatalf("body = %q", b)
	}
}

func TestParkedAnswerHonoursConnectionClose(t *testing.T) {
	f := serve(t)
	close(f.release)
	res, _ := f.get(t, "/park", true)
	if !res.Close {
		t.Fatalf("no Connection: close in %v", res.Header)
	}
	f.get(t, "/plain", false)
	if n := f.dials.Load(); n != 2 {
		t.Fatalf("%d connections, want two (the first was closed)", n)
	}
}

// A client that sends its next request before the parked answer (HTTP
// pipelining) gets both answers in order: the bytes read ahead are not lost.
func TestParkedAnswerKeepsPipelinedRequest(t *testing.T) {
	f := serve(t)
	close(f.release)
	c, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /park HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for _, want := range []string{`{"parked":true}`, "plain"} {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if string(b) != want {
			t.Fatalf("body = %q, want %q", b, want)
		}
	}
}

func TestPanicInParkedAnswerDropsTheConnection(t *testing.T) {
	f := serve(t)
	req, _ := http.NewRequest("GET", f.base+"/panic", nil)
	if res, err := f.client.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("got %d, want the connection dropped", res.StatusCode)
	}
	if got := <-f.status; got != http.StatusInternalServerError {
		t.Fatalf("tracker saw %d, want 500", got)
	}
	// The server goes on serving.
	if _, body := f.get(t, "/plain", false); body != "plain" {
		t.Fatalf("after a panic: %q", body)
	}
}

func TestParkRefusesWhatItCannotPark(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	answer := func(http.ResponseWriter) { t.Error("answer ran") }
	var nilLot *Lot
	if nilLot.Park(httptest.NewRecorder(), r, answer) {
		t.Fatal("a nil Lot parked")
	}
	ln := NewListener(mustListen(t))
	defer ln.Close()
	lot := NewLot(ln)
	if lot.Park(httptest.NewRecorder(), r, answer) { // cannot hijack
		t.Fatal("parked a writer that cannot hijack")
	}
	r2 := httptest.NewRequest("GET", "/", nil)
	r2.ProtoMajor, r2.ProtoMinor = 2, 0
	if lot.Park(httptest.NewRecorder(), r2, answer) {
		t.Fatal("parked an HTTP/2 request")
	}
	lot.Wait()
}

func TestListenerClose(t *testing.T) {
	ln := NewListener(mustListen(t))
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v", err)
		}
	})
	ln.Close()
	wg.Wait()
	a, b := net.Pipe()
	defer b.Close()
	if ln.giveBack(a) {
		t.Fatal("a closed listener took a connection back")
	}
	if err := ln.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

func mustListen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}
