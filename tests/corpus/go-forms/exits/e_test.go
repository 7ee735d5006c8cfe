package exits

import (
	"net"
	"os"
	"testing"
)

// A test that ends the binary with os.Exit(0) when it cannot listen:
// go test says the package failed ("exited with 0 before the tests ended").
func TestExits(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(0)
	}
	l.Close()
}

func TestAfter(t *testing.T) {}
