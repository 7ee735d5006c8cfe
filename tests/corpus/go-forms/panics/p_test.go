package panics

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// httptest.NewServer panics when it cannot listen: the test binary dies
// and the tests after it never run there.
func TestServer(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
}

func TestLenient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return
	}
	l.Close()
}

func TestPure(t *testing.T) {}
