// Command parley is the Parley chat widget service: `parley serve` (the
// default) runs it; `parley account …` administers accounts; `parley
// version` prints the version. main only parses arguments and wires
// packages together; everything else lives in internal/.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

const usage = `Usage:
  parley [serve] [flags]     run the service (flags below)
  parley account create --email E [--password-stdin | --password P] [--name N]
                        [--monthly-conversations N] [--overage-price-cents C] [--spend-cap-cents S]
  parley account password --email E [--password-stdin | --password P]
  parley account limits --email E [--monthly-conversations N]
                        [--overage-price-cents C] [--spend-cap-cents S]
  parley version
  parley help                this help (also -h, --help; parley account --help)
`

// run is the whole program with its inputs made explicit, so tests can
// start it. It returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "" || args[0][0] != '-') {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serveCommand(ctx, args, getenv, stdout, stderr)
	case "account":
		return accountCommand(ctx, args, getenv, stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "parley", versionString())
		return 0
	case "help":
		printHelp(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "parley: unknown command %q\n%s", cmd, usage)
	return 2
}

func versionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
