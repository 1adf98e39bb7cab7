package openapi

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/githubsim"
)

// issueFields and the other lists below are what the internal/github
// adapter reads from each answer (the go-github struct fields its toIssue,
// toPull, toComment, ... functions use). The response schemas are checked
// with "required" relaxed, so these are required instead: a field the
// adapter reads must be there, even where GitHub's description lets the
// simulator leave others out.
var (
	issueFields = []string{"id", "number", "title", "body", "state", "user.login", "labels[].name",
		"html_url", "created_at", "updated_at", "repository_url"}
	commentFields = []string{"id", "body", "user.login", "html_url", "created_at", "updated_at"}
	pullFields    = []string{"id", "number", "title", "body", "state", "head.ref", "head.sha", "base.ref",
		"draft", "merged_at", "html_url", "user.login"}
	reviewFields = []string{"id", "state", "body", "user.login"}
	commitFields = []string{"sha", "tree.sha", "message", "parents[].sha"}
)

func each(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "[]." + f
	}
	return out
}

// AdapterReads maps an operationId to the fields of its success answer
// the adapter reads ("[]." steps into every element of a list).
var AdapterReads = map[string][]string{
	"apps/get-authenticated":                  {"slug"},
	"apps/create-installation-access-token":   {"token", "expires_at"},
	"rate-limit/get":                          {"resources.core.limit", "resources.core.remaining", "resources.core.reset"},
	"repos/get":                               {"full_name", "default_branch", "private"},
	"repos/get-branch":                        {"commit.sha", "commit.commit.tree.sha"},
	"repos/get-collaborator-permission-level": {"permission", "role_name"},
	"repos/get-content":                       {"type", "sha", "content", "encoding"},
	"actions/get-github-actions-default-workflow-permissions-repository": {"can_approve_pull_request_reviews"},
	"git/get-ref":                        {"object.sha"},
	"git/get-commit":                     commitFields,
	"git/create-commit":                  commitFields,
	"git/get-tree":                       {"truncated", "tree[].path", "tree[].mode", "tree[].type", "tree[].sha"},
	"git/create-tree":                    {"sha"},
	"issues/get":                         issueFields,
	"issues/create":                      issueFields,
	"issues/update":                      issueFields,
	"issues/list-for-repo":               each(issueFields),
	"issues/list-sub-issues":             each(issueFields),
	"search/issues-and-pull-requests":    append([]string{"incomplete_results"}, prefixed("items", issueFields)...),
	"issues/list-comments":               each(commentFields),
	"issues/create-comment":              commentFields,
	"issues/update-comment":              commentFields,
	"issues/set-labels":                  {"[].name"},
	"issues/list-labels-for-repo":        {"[].name", "[].color", "[].description"},
	"issues/list-events":                 {"[].id", "[].event", "[].actor.login", "[].created_at"},
	"pulls/create":                       append([]string{"merged", "merged_by"}, pullFields...),
	"pulls/get":                          append([]string{"merged", "merged_by"}, pullFields...),
	"pulls/list":                         each(pullFields),
	"pulls/create-review":                reviewFields,
	"pulls/list-reviews":                 each(reviewFields),
	"pulls/list-review-comments":         {"[].path", "[].line", "[].original_line", "[].body", "[].user.login"},
	"pulls/list-files":                   {"[].filename", "[].status"},
	"users/get-authenticated":            {"login"},
	"reactions/create-for-issue-comment": {"id", "content"},
	"checks/list-for-ref": {"check_runs[].id", "check_runs[].name", "check_runs[].status", "check_runs[].conclusion",
		"check_runs[].head_sha", "check_runs[].app.slug", "check_runs[].output.title", "check_runs[].output.summary"},
	"checks/list-annotations":             {"[].path", "[].start_line", "[].annotation_level", "[].message"},
	"actions/list-workflow-runs-for-repo": {"workflow_runs[].id", "workflow_runs[].head_sha", "workflow_runs[].status", "workflow_runs[].conclusion"},
	"repos/compare-commits-with-basehead": {"merge_base_commit.sha", "files[].filename", "files[].status"},
	"actions/list-jobs-for-workflow-run":  {"jobs[].id", "jobs[].name", "jobs[].status", "jobs[].conclusion", "jobs[].runner_name", "jobs[].steps"},
}

func prefixed(prefix string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = prefix + "[]." + f
	}
	return out
}

// notREST reports whether a logged path is outside the REST API
// (GraphQL, archive downloads): the description does not cover it.
func notREST(path string) bool {
	return strings.HasSuffix(path, "/graphql") || strings.HasPrefix(path, "/_codeload/") || strings.HasPrefix(path, "/_joblogs/")
}

// CheckLog checks every request of a simulator's log and, where the log
// kept it (githubsim.WithResponseLog) and no injected fault wrote it, the
// answer: CheckRequest, CheckResponse and, for successes, AdapterReads.
// Each distinct problem is reported once, with how many requests had it.
func (d *Description) CheckLog(logs []githubsim.RequestLog) error {
	return d.checkLog(logs, true)
}

// CheckRequests is CheckLog for the requests alone: what the adapter
// sends, not what the simulator answers. It costs about a quarter as
// much (decoding and validating answers is the rest), which is what the
// fast default test suite can afford on every test.
func (d *Description) CheckRequests(logs []githubsim.RequestLog) error {
	return d.checkLog(logs, false)
}

func (d *Description) checkLog(logs []githubsim.RequestLog, answers bool) error {
	counts := map[string]int{}
	var order []string
	note := func(err error) {
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if counts[line] == 0 {
				order = append(order, line)
			}
			counts[line]++
		}
	}
	for _, l := range logs {
		if notREST(l.Path) {
			continue
		}
		if !answers {
			_, err := d.CheckRequest(l.Method, l.Path, l.Query, l.Body)
			note(err)
			continue
		}
		key := exchangeKey(l)
		if _, ok := d.passed.Load(key); ok {
			continue
		}
		failed := false
		d.checkExchange(l, func(err error) {
			if err != nil {
				failed = true
				note(err)
			}
		})
		if !failed {
			d.passed.Store(key, struct{}{})
		}
	}
	if len(order) == 0 {
		return nil
	}
	sort.Strings(order)
	errs := make([]error, 0, len(order))
	for _, line := range order {
		errs = append(errs, fmt.Errorf("%s [%d×]", line, counts[line]))
	}
	return errors.Join(errs...)
}

// checkExchange checks one logged request and, unless a fault answered
// it, its answer, telling note what does not conform.
func (d *Description) checkExchange(l githubsim.RequestLog, note func(error)) {
	op, err := d.CheckRequest(l.Method, l.Path, l.Query, l.Body)
	note(err)
	if op == nil || l.Faulted || l.Response == nil && l.Status != 304 {
		return
	}
	inst, err := d.checkResponse(op, l.Status, l.Response)
	note(err)
	if fields := AdapterReads[op.ID]; is2xx(l.Status) && len(fields) > 0 && inst != nil {
		if err := requireFields(inst, fields); err != nil {
			note(fmt.Errorf("%s answered %d: %w", op, l.Status, err))
		}
	}
}

// exchangeKey is a hash of everything checkExchange reads of l.
func exchangeKey(l githubsim.RequestLog) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%t\x00%t\x00%d\x00", l.Method, l.Path, l.Query, l.Status, l.Faulted, l.Response == nil, len(l.Body))
	h.Write(l.Body)
	h.Write([]byte{0})
	h.Write(l.Response)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}
