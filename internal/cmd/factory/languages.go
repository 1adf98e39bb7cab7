package factory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
)

// repoLanguage is a language a repository's manifest announces.
type repoLanguage struct {
	Name string
	// Marker is the manifest found, repository-relative.
	Marker string
	// Ext is the source file type a domain service must declare for it.
	Ext string
}

// languageMarkers maps a manifest's base name to its language and source
// type. Detection only reads file names: no repository code runs.
var languageMarkers = []struct{ file, name, ext string }{
	{"go.mod", "Go", ".go"},
	{"pyproject.toml", "Python", ".py"},
	{"setup.py", "Python", ".py"},
	{"requirements.txt", "Python", ".py"},
	{"package.json", "TypeScript/JavaScript", ".ts"},
	{"Cargo.toml", "Rust", ".rs"},
	{"pom.xml", "Java", ".java"},
	{"build.gradle", "Java", ".java"},
	{"build.gradle.kts", "Java", ".java"},
}

// DetectLanguages lists the languages whose manifests lie at the root of
// workspace or one directory down (a monorepo's web/, services/api/ are
// two levels, its top-level projects one), one entry per language, the
// shallowest marker first. Hidden and vendored directories are skipped.
func DetectLanguages(workspace string) []repoLanguage {
	dirs := []string{"."}
	if entries, err := os.ReadDir(workspace); err == nil {
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() && !strings.HasPrefix(n, ".") && n != "node_modules" && n != "vendor" && n != "testdata" {
				dirs = append(dirs, n)
			}
		}
	}
	var out []repoLanguage
	for _, d := range dirs {
		for _, m := range languageMarkers {
			if slices.ContainsFunc(out, func(l repoLanguage) bool { return l.Name == m.name }) {
				continue
			}
			if st, err := os.Stat(filepath.Join(workspace, d, m.file)); err == nil && !st.IsDir() {
				out = append(out, repoLanguage{Name: m.name, Marker: filepath.ToSlash(filepath.Join(d, m.file)), Ext: m.ext})
			}
		}
	}
	return out
}

// UncoveredLanguages returns the languages of langs no service covers,
// given the artifact types the services declare (with the built-in Go
// service's when it serves the repository).
func UncoveredLanguages(langs []repoLanguage, types []string) []repoLanguage {
	hs := domain.HandshakeResult{ArtifactTypes: types}
	var out []repoLanguage
	for _, l := range langs {
		// A package.json is TypeScript or JavaScript: a service of either
		// covers it.
		if !hs.Covers("x"+l.Ext) && (l.Ext != ".ts" || !hs.Covers("x.js")) {
			out = append(out, l)
		}
	}
	return out
}

// LanguagesNote says which languages have no domain service and where to
// register one; "" when every detected language is covered.
func LanguagesNote(missing []repoLanguage) string {
	if len(missing) == 0 {
		return ""
	}
	var names []string
	for _, l := range missing {
		names = append(names, fmt.Sprintf("%s (%s, %s files)", l.Name, l.Marker, l.Ext))
	}
	return fmt.Sprintf("no domain service covers %s: interface design, code generation and scenario validation halt on those files until one is registered in %s (see %s)",
		strings.Join(names, ", "), domain.DefaultServicesFile, domain.ServicesDoc)
}

// Coverage downgrades c when the repository has languages no service
// covers: a failure when none of them is covered (no stage that needs a
// service can run), a warning when some are.
func Coverage(c Check, workspace string, types []string) Check {
	langs := DetectLanguages(workspace)
	missing := UncoveredLanguages(langs, types)
	if len(missing) == 0 {
		return c
	}
	c.Status = CheckWarn
	if len(missing) == len(langs) {
		c.Status = CheckFail
	}
	c.Detail += "; " + LanguagesNote(missing)
	c.Fix = "declare a [[domains]] table for them in " + config.Path + " (preset python, typescript, javascript, rust or java) or register a service in " + domain.DefaultServicesFile + " (" + domain.ServicesDoc + ")"
	return c
}
