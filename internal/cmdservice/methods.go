package cmdservice

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	// sev: this package has a finding type of its own.
	sev "github.com/cogworks/cogworks/finding"
	"github.com/cogworks/cogworks/internal/beneath"
)

// maxArtifactRead bounds a normalised artifact read back.
const maxArtifactRead = 16 << 20

// maxOutput bounds the command output quoted in a result or diagnostic.
const maxOutput = 64 << 10

// prepare builds the request's workspace and runs the set-up command in
// it, in its own sandbox (with the network only when the domain asks and
// the operator allows).
func (s *service) prepare(ctx context.Context, req domain.Request) (*workspace, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	if err := s.setup(ctx, ws); err != nil {
		ws.Remove()
		return nil, err
	}
	return ws, nil
}

// setup runs the set-up command, if any, in ws.
func (s *service) setup(ctx context.Context, ws *workspace) error {
	if s.d.Setup == "" {
		return nil
	}
	res, err := s.run.run(ctx, ws, command{line: s.d.Setup, timeout: s.opts.CommandTimeout, network: s.d.SetupNetwork && s.run.allowNet})
	if err != nil {
		return err
	}
	if res.exitCode != 0 {
		return extserver.Errorf(domain.CodeToolFailed, "set-up %q of domain %s exited %d: %s", s.d.Setup, s.d.Name, res.exitCode, tail(res.output))
	}
	return nil
}

// validate runs every check command and reads its diagnostics. A check
// that exits non-zero without a diagnostic this service can read is one
// blocking diagnostic quoting its output: a failure never goes unseen.
func (s *service) validate(ctx context.Context, req domain.Request) (any, error) {
	ws, err := s.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	diags := []domain.Diagnostic{}
	for _, c := range s.d.Checks {
		res, err := s.run.run(ctx, ws, command{line: c, timeout: s.opts.CommandTimeout})
		if err != nil {
			return nil, err
		}
		found, err := readFindings(s.d.LintOutput, res.output)
		if err != nil {
			return nil, extserver.Errorf(domain.CodeToolFailed, "read the output of %q: %v", c, err)
		}
		n := len(diags)
		for _, f := range found {
			diags = append(diags, ws.diagnostic(f))
		}
		if res.exitCode != 0 && !hasBlocking(diags[n:]) {
			diags = append(diags, domain.Diagnostic{
				Severity: domain.SeverityBlocking, Category: domain.CategoryConstraintViolation,
				Message: fmt.Sprintf("%q exited %d:\n%s", c, res.exitCode, tail(res.output)),
			})
		}
	}
	return domain.DiagnosticsResult{Diagnostics: diags}, nil
}

func hasBlocking(ds []domain.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == domain.SeverityBlocking {
			return true
		}
	}
	return false
}

// readFindings reads a check's output as format says.
func readFindings(format string, out []byte) ([]finding, error) {
	switch {
	case format == "sarif", format == "auto" && looksLikeSARIF(out):
		return parseSARIF(out)
	default:
		return parseLines(out), nil
	}
}

// diagnostic maps a finding into the repository: its file is named only
// when it is a file the workspace held before any command ran.
func (w *workspace) diagnostic(f finding) domain.Diagnostic {
	d := domain.Diagnostic{Severity: severity(f.level), Category: domain.CategoryConstraintViolation, Message: f.message}
	if f.rule != "" {
		d.Message = f.rule + ": " + f.message
	}
	if rel, ok := w.relPath(f.file); ok {
		d.Artifact = rel
		d.Location = domain.Location{File: rel, Line: f.line, Column: f.column}
	}
	if strings.HasPrefix(f.message, "SyntaxError") {
		d.Category, d.Explains = domain.CategorySyntaxError, domain.ExplainsCompileError
	}
	return d
}

func severity(level string) sev.Severity {
	switch level {
	case "error":
		return domain.SeverityBlocking
	case "warning":
		return domain.SeverityWarning
	}
	return domain.SeverityInformational
}

// relPath turns a tool's path (relative to the workspace root, absolute
// under the sandbox's or the host's workspace path, or a file:// URI of
// either) into a repository-relative path of a known workspace file.
func (w *workspace) relPath(p string) (string, bool) {
	p = strings.TrimPrefix(p, "file://")
	for _, root := range []string{workspaceMount, w.dir} {
		if rest, ok := strings.CutPrefix(p, root+"/"); ok {
			p = rest
		}
	}
	if p == "" || filepath.IsAbs(p) {
		return "", false
	}
	rel := path.Clean(filepath.ToSlash(p))
	if !w.files[rel] {
		return "", false
	}
	return rel, true
}

// normalise runs the format command and returns every artifact as it
// now reads, read back without following links.
func (s *service) normalise(ctx context.Context, req domain.Request) (any, error) {
	ws, err := s.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	res, err := s.run.run(ctx, ws, command{line: s.d.Format, timeout: s.opts.CommandTimeout})
	if err != nil {
		return nil, err
	}
	out := domain.NormaliseResult{Diagnostics: []domain.Diagnostic{}, Artifacts: []domain.Artifact{}}
	if res.exitCode != 0 {
		out.Diagnostics = append(out.Diagnostics, domain.Diagnostic{
			Severity: domain.SeverityBlocking, Category: domain.CategoryStyleViolation,
			Message: fmt.Sprintf("%q exited %d:\n%s", s.d.Format, res.exitCode, tail(res.output)),
		})
	}
	for _, a := range req.Artifacts {
		if a.Delete {
			out.Artifacts = append(out.Artifacts, a)
			continue
		}
		data, err := beneath.ReadFile(ws.dir, path.Clean(filepath.ToSlash(a.Path)), maxArtifactRead)
		if err != nil {
			return nil, extserver.Errorf(domain.CodeToolFailed, "read %s after formatting: %v", a.Path, err)
		}
		if string(data) != a.Content {
			out.Changed = true
		}
		out.Artifacts = append(out.Artifacts, domain.Artifact{Path: a.Path, Content: string(data)})
	}
	return out, nil
}

// tail keeps the end of out, where tools print their summary.
func tail(out []byte) string {
	if len(out) > maxOutput {
		out = out[len(out)-maxOutput:]
	}
	return string(out)
}
