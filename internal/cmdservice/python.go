package cmdservice

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// python is the interpreter the {python} placeholder stands for.
type python struct {
	bin       string
	hasPytest bool
	// prefixes are the interpreter's sys.prefix and sys.base_prefix when
	// they lie outside the system directories the sandbox always binds
	// (a pyenv or virtualenv interpreter): bound read-only.
	prefixes []string
}

// pythonCandidates are tried in order: the python3 on PATH first (a
// virtualenv or pyenv the operator chose), then the system's, which is
// where Debian's python3-pytest installs pytest.
var pythonCandidates = []string{"python3", "python", "/usr/bin/python3", "/usr/local/bin/python3"}

// findPython picks the first interpreter that can import pytest, else the
// first that runs at all (pytest is then reported missing by the test
// run itself). It runs only host interpreters with -I (isolated: no
// user site, no current directory on sys.path), never repository code.
func findPython(ctx context.Context, environ []string) python {
	var first *python
	seen := map[string]bool{}
	for _, c := range pythonCandidates {
		bin, err := lookPath(c, environ)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(bin); err == nil && seen[real] {
			continue
		} else if err == nil {
			seen[real] = true
		}
		p, ok := probePython(ctx, bin)
		if !ok {
			continue
		}
		if p.hasPytest {
			return p
		}
		if first == nil {
			first = &p
		}
	}
	if first != nil {
		return *first
	}
	return python{bin: "python3"}
}

func probePython(ctx context.Context, bin string) (python, bool) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-I", "-c",
		"import sys\nprint(sys.executable)\nprint(sys.prefix)\nprint(sys.base_prefix)\ntry:\n import pytest\n print('pytest')\nexcept Exception:\n print('-')")
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		return python{}, false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 || !filepath.IsAbs(lines[0]) {
		return python{}, false
	}
	// sys.executable, not bin: a pyenv shim on PATH is a script the
	// sandbox cannot run, the interpreter it chose is not.
	p := python{bin: lines[0], hasPytest: lines[3] == "pytest"}
	for _, pre := range lines[1:3] {
		if !systemPath(pre) && !slices.Contains(p.prefixes, pre) {
			p.prefixes = append(p.prefixes, pre)
		}
	}
	return p, true
}

// systemPath reports whether p is under a directory every sandbox binds.
func systemPath(p string) bool {
	for _, d := range []string{"/usr", "/bin", "/lib"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// lookPath finds name on the PATH of environ (the service's own PATH may
// differ from the one it passes to commands).
func lookPath(name string, environ []string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(v) {
				if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil && filepath.IsAbs(p) {
					return p, nil
				}
			}
		}
	}
	return exec.LookPath(name)
}

// withPython replaces {python} in every command by bin, shell-quoted.
func (d Domain) withPython(bin string) Domain {
	q := shellQuote(bin)
	r := strings.NewReplacer("{python}", q)
	d.Setup, d.Format, d.Test, d.TestOne = r.Replace(d.Setup), r.Replace(d.Format), r.Replace(d.Test), r.Replace(d.TestOne)
	d.Checks = slices.Clone(d.Checks)
	for i := range d.Checks {
		d.Checks[i] = r.Replace(d.Checks[i])
	}
	return d
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PytestAvailable reports whether an interpreter findPython would try
// can import pytest.
func PytestAvailable(ctx context.Context, environ []string) bool {
	return findPython(ctx, environ).hasPytest
}
