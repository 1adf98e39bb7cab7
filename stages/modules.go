package stages

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// repoModules lists the modules of the repository checked out at
// workspace: every top-level directory that holds at least one file, and
// every directory one level below a top-level one that directly holds Go
// files (a nested Go package such as "firmware/motor"). Hidden
// directories, testdata and vendor are skipped. The list is sorted.
func repoModules(workspace string) ([]string, error) {
	if workspace == "" {
		return nil, errors.New("list repository modules: no workspace configured")
	}
	top, err := os.ReadDir(workspace)
	if err != nil {
		return nil, fmt.Errorf("list repository modules in %s: %w", workspace, err)
	}
	var modules []string
	for _, e := range top {
		if !e.IsDir() || skipModuleDir(e.Name()) {
			continue
		}
		dir := filepath.Join(workspace, e.Name())
		has, err := holdsFiles(dir)
		if err != nil {
			return nil, fmt.Errorf("list repository modules: %w", err)
		}
		if !has {
			continue
		}
		modules = append(modules, e.Name())
		subs, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("list repository modules in %s: %w", dir, err)
		}
		for _, s := range subs {
			if !s.IsDir() || skipModuleDir(s.Name()) {
				continue
			}
			goPkg, err := holdsGoFiles(filepath.Join(dir, s.Name()))
			if err != nil {
				return nil, fmt.Errorf("list repository modules: %w", err)
			}
			if goPkg {
				modules = append(modules, e.Name()+"/"+s.Name())
			}
		}
	}
	sort.Strings(modules)
	return modules, nil
}

func skipModuleDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor"
}

// holdsFiles reports whether dir contains a regular file at any depth
// (outside skipped directories).
func holdsFiles(dir string) (bool, error) {
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipModuleDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", dir, err)
	}
	return found, nil
}

// holdsGoFiles reports whether dir directly contains a .go file.
func holdsGoFiles(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
			return true, nil
		}
	}
	return false, nil
}

// checkGeneratedPaths rejects paths an LLM may not write: empty or
// absolute paths, paths with a ".." segment, and anything under
// .github/workflows/ or .cogworks/ (CI definitions and CogWorks's own
// configuration are never generated). Every offending path is reported,
// each by name.
func checkGeneratedPaths(paths []string) error {
	var errs []error
	for _, p := range paths {
		if problem := generatedPathProblem(p); problem != "" {
			errs = append(errs, fmt.Errorf("generated path %q: %s", p, problem))
		}
	}
	return errors.Join(errs...)
}

func generatedPathProblem(p string) string {
	s := strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	switch {
	case s == "":
		return "empty path"
	case strings.HasPrefix(s, "/") || filepath.IsAbs(p) || (len(s) >= 2 && s[1] == ':'):
		return "absolute paths are not allowed"
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return `paths may not contain ".."`
		}
	}
	clean := strings.ToLower(path.Clean(s))
	switch {
	case clean == ".github/workflows" || strings.HasPrefix(clean, ".github/workflows/"):
		return "writing under .github/workflows/ is not allowed"
	case clean == ".cogworks" || strings.HasPrefix(clean, ".cogworks/"):
		return "writing under .cogworks/ is not allowed"
	case clean == ".":
		return "path names no file"
	}
	return ""
}
