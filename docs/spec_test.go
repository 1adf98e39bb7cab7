package docs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	specSection    = regexp.MustCompile(`(?m)^## ([0-9]+)\. `)
	specSubsection = regexp.MustCompile(`(?m)^### ([0-9]+\.[0-9]+) `)
	// specCitation matches "docs/spec.md §5.2", "docs/spec.md §8" and a citation a
	// Go comment wraps between "SPEC" and "§".
	specCitation = regexp.MustCompile(`(?:\bSPEC|spec\.md)(?:\s*//)?\s*§\s*([0-9]+(?:\.[0-9]+)?)`)
)

// specSectionCount is the number of top-level sections of the original
// SPEC.md, whose numbering docs/spec.md keeps.
const specSectionCount = 17

// TestSpecKeepsSectionNumbers guards the promise that makes `docs/spec.md §N`
// citations mean docs/spec.md §N: sections 1 to 17, in order, once each.
func TestSpecKeepsSectionNumbers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "spec.md"))
	require.NoError(t, err)
	var got []int
	for _, m := range specSection.FindAllStringSubmatch(string(data), -1) {
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		got = append(got, n)
	}
	want := make([]int, specSectionCount)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, got, "docs/spec.md must keep SPEC.md's section numbers")
}

// TestSpecCitationsResolve checks every `docs/spec.md §N[.M]` and `spec.md §N[.M]`
// in the repository's Go and Markdown files against docs/spec.md's headings.
func TestSpecCitationsResolve(t *testing.T) {
	root := moduleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "spec.md"))
	require.NoError(t, err)
	sections := specSections(string(data))

	cites, err := scanCitations(os.DirFS(root))
	require.NoError(t, err)
	require.NotEmpty(t, cites, "no docs/spec.md § citation found: is the module root right?")
	for _, c := range cites {
		assert.True(t, sections[c.section], "%s:%d cites §%s, which docs/spec.md does not have", c.file, c.line, c.section)
	}
}

func TestScanCitationsFindsEveryForm(t *testing.T) {
	// The fixtures spell § as {S} so that this file's own source holds no
	// citation for TestSpecCitationsResolve to trip over.
	file := func(text string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(strings.ReplaceAll(text, "{S}", "§"))}
	}
	fsys := fstest.MapFS{
		"a/doc.go":             file("// Package a does x (SPEC {S}3).\n// Output (SPEC\n// {S}5.2). Also spec.md {S}17.\n"),
		"README.md":            file("Targets are from SPEC {S}16; see docs/spec.md {S}8.\nNot a citation: {S}4 alone.\n"),
		"a/testdata/x.go":      file("// SPEC {S}99\n"),
		"notes.txt":            file("SPEC {S}98\n"),
		".hidden/doc.go":       file("// SPEC {S}97\n"),
		"nested/go.mod":        file("module x\n"),
		"nested/doc.go":        file("// SPEC {S}96\n"),
		"a/SPECIAL.go":         file("// SPECIFICALLY {S}95 is no citation\n"),
		"docs/spec_example.md": file("SPEC {S} 11\n"),
	}
	cites, err := scanCitations(fsys)
	require.NoError(t, err)
	var got []string
	for _, c := range cites {
		got = append(got, fmt.Sprintf("%s:%d §%s", c.file, c.line, c.section))
	}
	assert.ElementsMatch(t, []string{
		"a/doc.go:1 §3", "a/doc.go:2 §5.2", "a/doc.go:3 §17",
		"README.md:1 §16", "README.md:1 §8",
		"docs/spec_example.md:1 §11",
	}, got)

	sections := specSections("## 1. Layout\n### 1.1 sub\n## 12. Scenarios\n#### 1.2 too deep\n")
	assert.Equal(t, map[string]bool{"1": true, "1.1": true, "12": true}, sections)
}

// citation is one `docs/spec.md §…` reference.
type citation struct {
	file    string
	line    int
	section string
}

// specSections returns the section numbers docs/spec.md defines.
func specSections(spec string) map[string]bool {
	sections := map[string]bool{}
	for _, m := range specSection.FindAllStringSubmatch(spec, -1) {
		sections[m[1]] = true
	}
	for _, m := range specSubsection.FindAllStringSubmatch(spec, -1) {
		sections[m[1]] = true
	}
	return sections
}

// scanCitations reads every .go and .md file the go command would see
// (skipping testdata, hidden and underscore directories, and nested
// modules) and returns the spec citations in them.
func scanCitations(fsys fs.FS) ([]citation, error) {
	var cites []citation
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDir(fsys, p, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if ext := path.Ext(p); ext != ".go" && ext != ".md" {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		text := string(data)
		for _, m := range specCitation.FindAllStringSubmatchIndex(text, -1) {
			cites = append(cites, citation{
				file:    p,
				line:    strings.Count(text[:m[0]], "\n") + 1,
				section: text[m[2]:m[3]],
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan spec citations: %w", err)
	}
	return cites, nil
}
