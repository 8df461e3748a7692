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
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `Usage:
  parley [serve] [flags]     run the service (parley serve -h lists the flags)
  parley account create --email E --password P [--name N]
                        [--monthly-conversations N] [--overage-price-cents C] [--spend-cap-cents S]
  parley account limits --email E [--monthly-conversations N]
                        [--overage-price-cents C] [--spend-cap-cents S]
  parley version
`

// run is the whole program with its inputs made explicit, so tests can
// start it. It returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "" || args[0][0] != '-') {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serveCommand(ctx, args, getenv, stdout, stderr)
	case "account":
		return accountCommand(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "parley", versionString())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
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
