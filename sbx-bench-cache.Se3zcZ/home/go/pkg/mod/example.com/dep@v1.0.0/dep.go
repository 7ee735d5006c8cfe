package dep

import "strings"

func Msg() string { return strings.ToUpper("dep") }
