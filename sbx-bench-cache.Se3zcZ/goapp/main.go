package main

import (
	"fmt"
	"net/http"
	"example.com/dep"
)

func main() { fmt.Println(dep.Msg(), http.StatusOK) }
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
// edit
