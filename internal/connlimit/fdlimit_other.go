//go:build !unix

package connlimit

import "errors"

// DescriptorLimit reports that this system has no RLIMIT_NOFILE to read.
func DescriptorLimit() (soft, hard uint64, err error) {
	return 0, 0, errors.New("no descriptor limit on this system")
}
