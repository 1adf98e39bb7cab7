//go:build unix && !linux

package beneath

import "os"

// Without openat2, every element is opened with O_NOFOLLOW in turn.

func openBeneath(root, clean string) (*os.File, error) { return openWalk(root, clean) }

func regularBeneath(root, clean string) error { return regularWalk(root, clean) }
