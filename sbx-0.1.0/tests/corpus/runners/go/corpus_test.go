// Per-test results corpus for go test: passing, failing, skipped,
// panicking-free subtests (nested, with spaces), parallel tests.
package corpus

import (
	"fmt"
	"net"
	"testing"
	"time"
)

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Fatal("wrong") }

func TestSkip(t *testing.T) { t.Skip("needs the network") }

func TestSub(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("fails", func(t *testing.T) { t.Error("no") })
	t.Run("with space", func(t *testing.T) {
		t.Run("deeper", func(t *testing.T) {})
	})
}

func TestParallelA(t *testing.T) {
	t.Parallel()
	time.Sleep(50 * time.Millisecond)
	fmt.Println("--- PASS: TestFake (0.00s)")
}

func TestParallelB(t *testing.T) {
	t.Parallel()
	time.Sleep(20 * time.Millisecond)
}

func TestBind(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}
