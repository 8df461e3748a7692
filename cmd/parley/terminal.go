package main

import (
	"os"

	"golang.org/x/term"
)

// onTerminal reports whether f (stdout, stdin) is a terminal, where a person
// reads and types; a pipe, a file or a journal is not.
func onTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
