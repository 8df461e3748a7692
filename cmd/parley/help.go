package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"parley/internal/config"
)

// printHelp writes the commands and the flags of `parley serve`, for
// `parley help`, -h and --help.
func printHelp(w io.Writer) {
	fmt.Fprint(w, "Parley: a self-hosted AI chat widget service.\n\n", usage, `
The account commands act on --db (or PARLEY_DB). Without --password or
--password-stdin they ask for the password on the terminal, unechoed.
A new password has at least 10 characters and is not a common one.

Flags of parley serve (each also read from the environment variable it
names; a flag wins):
`)
	// The flags' defaults as built in, not as this environment sets them:
	// help must not print PARLEY_LLM_API_KEY or a database password.
	var flags bytes.Buffer
	config.Load([]string{"-h"}, func(string) string { return "" }, &flags)
	_, list, _ := strings.Cut(flags.String(), "\n") // after "Usage of parley serve:"
	fmt.Fprint(w, list)
}
