package root_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docInvocation is `cogworks` (or `./cogworks`, `go run ./cmd/cogworks`)
// followed by what a reader would type: the command words and flags up to
// the end of the command, then the flags a shell comment after it names
// ("cogworks init  # --dry-run to preview").
var docInvocation = regexp.MustCompile("(?:^|[\\s`(])(?:\\./|\\./cmd/)?cogworks[ \\t]+([^`|;&#)\\n]*)(#[^`\\n]*)?")

// commentFlag is a flag named in a shell comment.
var commentFlag = regexp.MustCompile(`(?:^|[\s(,])(--[a-z][a-z-]*)`)

// inlineCode is a Markdown code span.
var inlineCode = regexp.MustCompile("`([^`]+)`")

// codeOfDoc returns the code a Markdown file shows a reader: its fenced
// blocks line by line and its inline code spans, each with its line number.
func codeOfDoc(text string) map[int][]string {
	code := map[int][]string{}
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			code[i+1] = append(code[i+1], line)
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			code[i+1] = append(code[i+1], m[1])
		}
	}
	return code
}

// checkInvocation resolves the words after `cogworks` in the command tree
// and returns what does not exist: an unknown command, or a flag the
// command does not have.
func checkInvocation(root *cobra.Command, args string) []string {
	cmd := root
	var problems []string
	words := strings.Fields(args)
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if name == "" || !strings.HasPrefix(w, "--") && len(name) != 1 {
				continue
			}
			fl := cmd.Flags().Lookup(name)
			if len(name) == 1 {
				fl = cmd.Flags().ShorthandLookup(name)
			}
			if fl == nil && cmd.InheritedFlags().Lookup(name) == nil && name != "help" {
				problems = append(problems, cmd.CommandPath()+" has no flag "+w)
			}
			continue
		}
		if i > 0 && strings.HasPrefix(words[i-1], "--") && !strings.Contains(words[i-1], "=") {
			continue // the previous flag's value
		}
		if sub, _, err := cmd.Find([]string{w}); err == nil && sub != cmd {
			cmd = sub
			continue
		}
		if cmd == root {
			if i == 0 && strings.ContainsAny(w[:1], "./$") {
				return nil // `go build -o cogworks ./cmd/cogworks`: a path, not a command
			}
			return append(problems, "no command cogworks "+w)
		}
		// Past the command words: a positional argument or prose.
	}
	return problems
}

// TestDocumentedInvocationsExist keeps README.md and docs/*.md honest about
// the CLI: every `cogworks <command> --flag` shown in their code (fenced
// blocks and inline code) names a command and flags that exist.
func TestDocumentedInvocationsExist(t *testing.T) {
	t.Parallel()
	f := &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	root := root.NewCmdRoot(f, "test")
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "docs", "*.md"))
	require.NoError(t, err)
	files = append(files, filepath.Join("..", "..", "..", "README.md"))
	checked := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for line, snippets := range codeOfDoc(string(data)) {
			for _, s := range snippets {
				for _, m := range docInvocation.FindAllStringSubmatch(s, -1) {
					checked++
					args := m[1]
					for _, fm := range commentFlag.FindAllStringSubmatch(m[2], -1) {
						args += " " + fm[1]
					}
					for _, p := range checkInvocation(root, args) {
						t.Errorf("%s:%d: %s (in %q)", filepath.Base(path), line, p, strings.TrimSpace(s))
					}
				}
			}
		}
	}
	assert.Greater(t, checked, 40, "found too few cogworks invocations: is the scan broken?")
}

// TestCheckInvocationFindsWhatDoesNotExist proves the check above can fail.
func TestCheckInvocationFindsWhatDoesNotExist(t *testing.T) {
	t.Parallel()
	f := &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	root := root.NewCmdRoot(f, "test")
	tests := []struct {
		args string
		want []string
	}{
		{"process --repo a/b --issue 42 --max-steps 20", nil},
		{"registry validate --dir x", nil},
		{"doctor --offline", nil},
		{"process --max-step 3", []string{"cogworks process has no flag --max-step"}},
		{"registry validate --workers 2", []string{"cogworks registry validate has no flag --workers"}},
		{"procss --issue 1", []string{"no command cogworks procss"}},
		{"./cmd/cogworks", nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			assert.Equal(t, tt.want, checkInvocation(root, tt.args))
		})
	}
}
