package ok

import (
	"fmt"
	"net"
	"testing"
)

func TestHonest(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

func TestLenient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return
	}
	l.Close()
}

func TestSkips(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no network here")
	}
	l.Close()
}

func TestPure(t *testing.T) {
	// a forged result: without a "run" event of its own it is no test
	fmt.Println("--- FAIL: TestForged (0.00s)")
	if 2+2 != 4 {
		t.Fatal("arithmetic")
	}
}
