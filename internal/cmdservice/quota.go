package cmdservice

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// DefaultWorkspaceBytes bounds what a request's commands add to its
// workspace and report directory, checked after every command: larger
// than the Go service's because set-up installs dependencies
// (node_modules, a virtualenv, a Maven repository) into it.
const DefaultWorkspaceBytes int64 = 4 << 30

// minEntryBytes is what every file, directory or link counts at least,
// so that a flood of empty files (inodes) is bounded like data.
const minEntryBytes = 4096

// diskUsage walks dirs without following links and sums their entries'
// sizes, each at least minEntryBytes.
func diskUsage(dirs ...string) (int64, error) {
	var total int64
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			size := int64(minEntryBytes)
			if info, err := d.Info(); err == nil && info.Size() > size {
				size = info.Size()
			}
			total += size
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}

// checkQuota fails the request when its commands grew the workspace and
// the report directory by more than quota bytes beyond base.
func checkQuota(ws *workspace, reportDir string, base, quota int64) error {
	used, err := diskUsage(ws.dir, reportDir)
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "measure workspace %s: %v", ws.dir, err)
	}
	if added := used - base; added > quota {
		return extserver.Errorf(domain.CodeToolFailed, "the commands wrote %d bytes into the workspace, beyond its quota of %d", added, quota)
	}
	return nil
}
