//go:build unix

package connlimit

import "syscall"

// DescriptorLimit returns the process's soft and hard limits on open files
// (RLIMIT_NOFILE). It reads them and changes nothing: since Go 1.19 the
// runtime raises the soft limit to the hard one (less one, on Linux) when
// the program starts, which is all a server could do without privileges.
func DescriptorLimit() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	return uint64(lim.Cur), uint64(lim.Max), nil
}
