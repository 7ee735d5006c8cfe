//go:build hang

// A test that outlives -timeout, after one that passes.
package hang

import (
	"testing"
	"time"
)

func TestBefore(t *testing.T) {}

func TestHangs(t *testing.T) { time.Sleep(time.Minute) }
