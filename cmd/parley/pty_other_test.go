//go:build !linux

package main

import (
	"os"
	"testing"
)

func openPTY(t *testing.T) (ptm, tty *os.File) {
	t.Skip("the terminal tests open a Linux pseudo-terminal")
	return nil, nil
}

func echoing(t *testing.T, tty *os.File) bool { return false }
