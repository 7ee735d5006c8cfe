package sub

import "testing"

func TestPanics(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}

func TestAfterPanic(t *testing.T) {}
