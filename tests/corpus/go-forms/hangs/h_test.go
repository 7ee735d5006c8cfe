package hangs

import (
	"net"
	"testing"
	"time"
)

// Waits where it cannot listen: go test -timeout stops the binary.
func TestWaits(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		time.Sleep(time.Hour)
	}
	l.Close()
}
