package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"

	"github.com/cogworks/cogworks/internal/config"
)

//go:embed all:testdata/samples
var samples embed.FS

// Sample is a small repository in a language other than Go with a bug
// filed against it, the [[domains]] table that serves it with the built-in
// command domain service, and the scripted LLM answers that fix the bug.
// The first code attempt fails the toolchain (a test or the type check)
// and the second answers that feedback: the answer rules match only text
// the toolchain's report puts in the prompt.
type Sample struct {
	// Name is the sample's language: python, typescript or rust.
	Name string
	// Owner/Repo name the simulated repository.
	Owner, Repo string
	// Files are the repository's files keyed by slash path.
	Files map[string]string
	// IssueTitle and IssueBody are the bug report.
	IssueTitle, IssueBody string
	// Domain is the [[domains]] table a team writes for this repository.
	Domain config.Domain
	// Feedback is the toolchain's text that the second code attempt
	// answers (a failing test's name, a compiler error code), and Tool
	// what reported it.
	Feedback, Tool string
	// FixedPath is the file the fix changes and Fixed a part of it only
	// the second (fixed) answer writes.
	FixedPath, Fixed string
	// Rules are the scripted LLM's answers (see Script).
	Rules []Rule
}

// SampleNames lists the non-Go samples.
func SampleNames() []string {
	names := make([]string, 0, len(sampleDefs))
	for n := range sampleDefs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LoadSample returns the sample called name.
func LoadSample(name string) (Sample, error) {
	def, ok := sampleDefs[name]
	if !ok {
		return Sample{}, fmt.Errorf("no sample %q (samples: go, %v)", name, SampleNames())
	}
	s := def()
	files, err := readTree(samples, "testdata/samples/"+name)
	if err != nil {
		return Sample{}, fmt.Errorf("sample %s: %w", name, err)
	}
	s.Name, s.Owner, s.Files = name, Owner, files
	return s, nil
}

// Provider returns the scripted LLM of the sample.
func (s Sample) Provider() *RuleProvider { return NewRuleProvider("demo-rules", slices.Clone(s.Rules)) }

func readTree(fsys fs.FS, dir string) (map[string]string, error) {
	root, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	err = fs.WalkDir(root, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, path)
		if err != nil {
			return err
		}
		files[path] = string(data)
		return nil
	})
	return files, err
}

var sampleDefs = map[string]func() Sample{
	"python":     pythonSample,
	"typescript": typescriptSample,
	"rust":       rustSample,
}

// bugFix is the common script of a sample: a low-complexity bug fix
// (intake → planning → code generation → scenario validation → review →
// integration, no design stages), whose first code answer is broken and
// whose second answers the feedback.
type bugFix struct {
	// module is the one module the classification names.
	module string
	// desc is the plan's one sub-work-item's description.
	desc string
	// files are the files that sub-work-item writes.
	files []string
	// feedback is what the broken answer's failure says; a code
	// generation prompt carrying it gets the fixed answer.
	feedback string
	// broken and fixed are the two code_generation answers (change).
	broken, fixed map[string]any
}

// rules is the script's LLM rules.
func (b bugFix) rules() []Rule {
	module, desc, files, feedback, broken, fixed := b.module, b.desc, b.files, b.feedback, b.broken, b.fixed
	noFindings := reviewAnswer{Passed: true, Findings: []finding{}}
	return []Rule{
		{Template: "classify", Answer: map[string]any{
			"type": "bug_fix", "affected_modules": []string{module},
			"estimated_scope":  map[string]any{"files": len(files), "interfaces": 0, "complexity": "low"},
			"safety_affecting": false,
			"rationale":        "A contained fix with a regression test.",
		}},
		{Template: "planning", Answer: map[string]any{"sub_work_items": []map[string]any{{
			"id": "fix", "title": "Fix the reported bug", "description": desc,
			"files": files, "interfaces": []string{}, "symbols": []string{},
			"tests": "A regression test for the report.", "depends_on": []string{},
		}}}},
		{Template: "code_generation", When: []string{feedback}, Answer: fixed},
		{Template: "code_generation", Answer: broken},
		{Template: "review_quality", Answer: noFindings},
		{Template: "review_architecture", Answer: noFindings},
		{Template: "review_security", Answer: noFindings},
	}
}

type edit struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// change is a code_generation answer of edits to existing files and new
// files.
func change(notes string, edits []edit, files ...file) map[string]any {
	if files == nil {
		files = []file{}
	}
	return map[string]any{"edits": edits, "files": files, "deletes": []string{}, "renames": []any{}, "notes": notes}
}
