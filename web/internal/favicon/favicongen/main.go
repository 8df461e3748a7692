// Command favicongen writes web/favicon.ico from package favicon. Run it
// through `go generate ./web`; the output is committed.
package main

import (
	"fmt"
	"os"

	"parley/web/internal/favicon"
)

func main() {
	b, err := favicon.ICO()
	if err == nil {
		err = os.WriteFile("favicon.ico", b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "favicongen:", err)
		os.Exit(1)
	}
}
