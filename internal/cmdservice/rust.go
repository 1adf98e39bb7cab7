package cmdservice

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// rustToolchain is what a sandboxed command needs to run cargo installed
// by rustup (~/.cargo/bin, whose cargo is a proxy that reads the
// toolchains under RUSTUP_HOME): the directories to bind read-only and
// RUSTUP_HOME, which the sandbox's own HOME would otherwise put at an
// empty /tmp/home/.rustup.
type rustToolchain struct {
	dirs []string
	env  []string
}

// findRust locates cargo on the PATH of environ. A cargo under the
// system directories needs nothing; one elsewhere gets its directory
// (and its link target's) bound, and a rustup home — RUSTUP_HOME, else
// $HOME/.rustup — bound and named. Never ~/.cargo itself: its
// credentials.toml holds registry tokens. CARGO_HOME is left to its default
// under the sandbox's writable HOME: a crate without dependencies
// needs nothing from the host's registry cache.
func findRust(environ []string) rustToolchain {
	var rt rustToolchain
	cargo, err := lookPath("cargo", environ)
	if err != nil || systemPath(cargo) {
		return rt
	}
	rt.dirs = append(rt.dirs, filepath.Dir(cargo))
	if real, err := filepath.EvalSymlinks(cargo); err == nil && !systemPath(real) && !slices.Contains(rt.dirs, filepath.Dir(real)) {
		rt.dirs = append(rt.dirs, filepath.Dir(real))
	}
	home := envValue(environ, "RUSTUP_HOME")
	if home == "" {
		if h := envValue(environ, "HOME"); h != "" {
			home = filepath.Join(h, ".rustup")
		}
	}
	if info, err := os.Stat(home); err == nil && info.IsDir() && filepath.IsAbs(home) {
		rt.dirs = append(rt.dirs, home)
		rt.env = append(rt.env, "RUSTUP_HOME="+home)
	}
	if tc := envValue(environ, "RUSTUP_TOOLCHAIN"); tc != "" {
		rt.env = append(rt.env, "RUSTUP_TOOLCHAIN="+tc)
	}
	return rt
}

// envValue is the value of name in environ ("" when unset).
func envValue(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if val, ok := strings.CutPrefix(kv, name+"="); ok {
			v = val
		}
	}
	return v
}

// uses reports whether any of d's commands mentions tool.
func (d Domain) uses(tool string) bool {
	for _, c := range append([]string{d.Setup, d.Format, d.Test, d.TestOne}, d.Checks...) {
		if strings.Contains(c, tool) {
			return true
		}
	}
	return false
}
