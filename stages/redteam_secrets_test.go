package stages_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// leakyTest fails printing the secret base64-, hex- and URL-encoded. The
// secret is assembled at run time, as a test reading it from the
// environment would have it.
const leakyTest = `package widgets

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"testing"
)

func TestSimple(t *testing.T) {
	s := "redteam-" + "stage-secret-42"
	t.Logf("b64=%s", base64.StdEncoding.EncodeToString([]byte(s)))
	t.Logf("hex=%s", hex.EncodeToString([]byte(s)))
	t.Logf("url=%s", url.QueryEscape(s+" /x"))
	c := NewSimple()
	c.Inc()
	if got, want := c.Value(), 2; got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}
`

// TestRedTeamSecretInGeneratedTestOutput runs a generated test that
// prints a secret encoded through the real Go domain service: the
// implementer gets the failure back without the secret, and the failure
// report posted on the simulator through the adapter carries neither the
// secret nor the whole output.
func TestRedTeamSecretInGeneratedTestOutput(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	const secret = "redteam-stage-secret-42"
	forms := []string{base64.StdEncoding.EncodeToString([]byte(secret)), hex.EncodeToString([]byte(secret)), url.QueryEscape(secret)}
	r := secrets.New(secret)
	f := stagetest.NewBuildFixture(t, stagetest.StartGoService(t), []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Deps.LLM.Redact = r.Redact
	f.Cfg.Budgets.SubWorkItemMaxRetries = 2
	for range 2 {
		f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: leakyTest})
	}

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc, "both attempts fail")

	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[1], "got 1, want 2", "the implementer gets the failing output")
	assert.Contains(t, reqs[1], "b64=[REDACTED]", "redacted")
	for _, form := range forms {
		assert.NotContains(t, reqs[1], form)
	}

	client, err := github.New(context.Background(), github.Options{
		BaseURL: f.Env.URL + "/api/v3/", Token: testenv.Token, Redactor: r,
		Retry: github.RetryPolicy{MaxRetries: -1}, Sleep: func(context.Context, time.Duration) error { return nil },
	})
	require.NoError(t, err)
	report := audit.FailureReport(audit.Failure{WorkItem: f.Parent, Stage: string(pipeline.StageCodeGeneration), Reason: esc.Reason, Attempts: esc.Attempts})
	_, err = client.CreateComment(context.Background(), testenv.Repo, f.Parent, report)
	require.NoError(t, err)
	var posted strings.Builder
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Parent) {
		posted.WriteString(c.Body)
	}
	assert.Contains(t, posted.String(), "TestSimple", "the report names the failing test")
	for _, form := range forms {
		assert.NotContains(t, posted.String(), form)
	}
}
