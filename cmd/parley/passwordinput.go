package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// passwordFlags are the ways a password reaches the account commands:
// --password-stdin (the first line of standard input), a prompt that does
// not echo when standard input is a terminal, or --password for scripts
// that accept it showing in `ps` and in shell history.
type passwordFlags struct {
	value     *string
	fromStdin *bool
}

func (p *passwordFlags) register(fs *flag.FlagSet) {
	p.value = fs.String("password", "", "the password; it shows in ps and shell history, so prefer --password-stdin or the prompt")
	p.fromStdin = fs.Bool("password-stdin", false, "read the password from the first line of standard input")
}

// read returns the password given by the flags, from stdin, or asked for
// on the terminal (prompts go to prompts, never to stdout, which carries
// the command's JSON).
func (p *passwordFlags) read(stdin io.Reader, prompts io.Writer) (string, error) {
	switch {
	case *p.value != "" && *p.fromStdin:
		return "", errors.New("give --password or --password-stdin, not both")
	case *p.value != "":
		return *p.value, nil
	case *p.fromStdin:
		return firstLine(stdin)
	}
	if onTerminal(stdin) {
		return ask(int(stdin.(*os.File).Fd()), prompts)
	}
	return "", errors.New("give the password with --password-stdin (or --password); standard input is not a terminal to ask on")
}

// firstLine reads one line; only its line ending is dropped, since a
// password may begin or end with spaces.
func firstLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("--password-stdin: standard input holds no password")
	}
	return line, nil
}

// ask reads the password twice from the terminal fd without echo.
func ask(fd int, prompts io.Writer) (string, error) {
	var typed [2]string
	for i, label := range []string{"Password: ", "Again: "} {
		fmt.Fprint(prompts, label)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(prompts)
		if err != nil {
			return "", fmt.Errorf("reading the password: %w", err)
		}
		typed[i] = string(b)
	}
	if typed[0] != typed[1] {
		return "", errors.New("the two passwords differ")
	}
	return typed[0], nil
}
