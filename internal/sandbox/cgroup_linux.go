package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is where the host mounts its cgroup hierarchies.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupFile is one limit written into a new cgroup; an optional one may
// be missing (memory.memsw.* without swap accounting).
type cgroupFile struct {
	name, value string
	optional    bool
}

// cgroups are the cgroup directories one sandbox's init joins, and which
// controllers they bound.
type cgroups struct {
	dirs   []string
	pids   bool
	memory bool
}

// remove deletes the cgroups once their processes are gone.
func (c cgroups) remove() {
	for _, d := range c.dirs {
		removeCgroup(d)
	}
}

// newCgroups creates the cgroups that bound the sandbox as a whole where
// the host lets the caller create them (root, or a delegated cgroup v2
// hierarchy at its root): a pids cgroup (Limits.Processes; RLIMIT_NPROC
// does not bind uid 0) and a memory cgroup (Limits.TotalMemoryBytes, swap
// included: RLIMIT_AS bounds each process, not their sum). Where a
// controller is missing the sandbox runs without it (see Isolation).
func newCgroups(l Limits) cgroups {
	var c cgroups
	pids := strconv.FormatUint(l.Processes, 10)
	mem := strconv.FormatUint(l.TotalMemoryBytes, 10)
	if v2, ok := cgroupV2(); ok {
		var files []cgroupFile
		if v2.has("pids") {
			files = append(files, cgroupFile{name: "pids.max", value: pids})
		}
		if v2.has("memory") {
			files = append(files, cgroupFile{name: "memory.max", value: mem}, cgroupFile{name: "memory.swap.max", value: "0", optional: true})
		}
		if len(files) > 0 {
			if dir, err := newCgroup(v2.dir, files); err == nil {
				c.dirs, c.pids, c.memory = append(c.dirs, dir), v2.has("pids"), v2.has("memory")
			}
		}
	}
	if !c.pids && isV1("pids") {
		if dir, err := newCgroup(filepath.Join(cgroupRoot, "pids"), []cgroupFile{{name: "pids.max", value: pids}}); err == nil {
			c.dirs, c.pids = append(c.dirs, dir), true
		}
	}
	if !c.memory && isV1("memory") {
		// memsw (memory + swap) must not be below the memory limit: set
		// after it. Without swap accounting the file does not exist.
		files := []cgroupFile{{name: "memory.limit_in_bytes", value: mem}, {name: "memory.memsw.limit_in_bytes", value: mem, optional: true}}
		if dir, err := newCgroup(filepath.Join(cgroupRoot, "memory"), files); err == nil {
			c.dirs, c.memory = append(c.dirs, dir), true
		}
	}
	return c
}

// v2Hierarchy is a cgroup v2 directory and the controllers it enables for
// its children.
type v2Hierarchy struct {
	dir         string
	controllers []string
}

func (h v2Hierarchy) has(controller string) bool {
	for _, c := range h.controllers {
		if c == controller {
			return true
		}
	}
	return false
}

// cgroupV2 finds a cgroup v2 hierarchy (unified, or hybrid at
// /sys/fs/cgroup/unified) whose root enables a controller for its
// children.
func cgroupV2() (v2Hierarchy, bool) {
	for _, dir := range []string{cgroupRoot, filepath.Join(cgroupRoot, "unified")} {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err == nil && len(strings.Fields(string(data))) > 0 {
			return v2Hierarchy{dir: dir, controllers: strings.Fields(string(data))}, true
		}
	}
	return v2Hierarchy{}, false
}

// isV1 reports whether the host mounts a cgroup v1 hierarchy for the
// controller.
func isV1(controller string) bool {
	_, err := os.Stat(filepath.Join(cgroupRoot, controller, "tasks"))
	return err == nil
}

// newCgroup creates a cgroup under base and writes its limits.
func newCgroup(base string, files []cgroupFile) (string, error) {
	dir, err := os.MkdirTemp(base, "cogworks-sandbox-")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.value), 0o644)
		if err != nil && (!f.optional || !errors.Is(err, os.ErrNotExist)) {
			removeCgroup(dir)
			return "", fmt.Errorf("cgroup %s: write %s: %w", dir, f.name, err)
		}
	}
	return dir, nil
}

// removeCgroup removes a sandbox's cgroup once its processes are gone.
func removeCgroup(dir string) {
	for range 50 {
		if err := syscall.Rmdir(dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
