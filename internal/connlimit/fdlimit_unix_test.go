//go:build unix

package connlimit

import "testing"

// The soft limit on open files is raised to the hard one (less one) when a
// Go program starts; the budget is derived from it and Parley does not
// raise it itself (docs/operations.md, "Connections and file
// descriptors"). This holds the runtime to it.
func TestDescriptorLimitRaisedAtStart(t *testing.T) {
	soft, hard, err := DescriptorLimit()
	if err != nil {
		t.Fatal(err)
	}
	if hard > 0 && soft+1 < hard {
		t.Errorf("soft limit %d, hard %d: the runtime did not raise the soft limit", soft, hard)
	}
	t.Logf("open files: soft %d, hard %d", soft, hard)
}
