package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CIEvents are the events whose completion may start a CI-feedback
// revision (stages/revision CIReviser): a workflow subscribes to these.
var CIEvents = []string{"check_run", "check_suite", "workflow_run"}

// CIResult is a completed check run, check suite or workflow run as its
// event carried it.
type CIResult struct {
	Event               string
	Action              string
	ID                  int64
	Name                string
	HeadSHA, HeadBranch string
	Status, Conclusion  string
	// PullRequests are the numbers of the repository's own open pull
	// requests whose head is HeadBranch (GitHub lists none for a fork's).
	PullRequests []int
}

// ciRaw mirrors the part of the three payloads CogWorks reads.
type ciRaw struct {
	Action string  `json:"action"`
	Run    *ciBody `json:"check_run"`
	Suite  *ciBody `json:"check_suite"`
	WRun   *ciBody `json:"workflow_run"`
}

type ciBody struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	HeadSHA      string `json:"head_sha"`
	HeadBranch   string `json:"head_branch"`
	Status       string `json:"status"`
	Conclusion   string `json:"conclusion"`
	PullRequests []struct {
		Number int `json:"number"`
		Head   struct {
			Ref string `json:"ref"`
		} `json:"head"`
	} `json:"pull_requests"`
	// CheckSuite is a check run's suite, which names its branch.
	CheckSuite *struct {
		HeadBranch string `json:"head_branch"`
	} `json:"check_suite"`
}

// ParseCI reads a check_run, check_suite or workflow_run payload.
func ParseCI(event string, data []byte) (CIResult, error) {
	var r ciRaw
	if err := json.Unmarshal(data, &r); err != nil {
		return CIResult{}, fmt.Errorf("not a JSON GitHub event payload: %w", err)
	}
	var b *ciBody
	switch event {
	case "check_run":
		b = r.Run
	case "check_suite":
		b = r.Suite
	case "workflow_run":
		b = r.WRun
	default:
		return CIResult{}, fmt.Errorf("%s is no CI event (want one of %s)", event, strings.Join(CIEvents, ", "))
	}
	if b == nil {
		return CIResult{}, fmt.Errorf("%s payload has no %s", event, event)
	}
	res := CIResult{Event: event, Action: r.Action, ID: b.ID, Name: b.Name, HeadSHA: b.HeadSHA, HeadBranch: b.HeadBranch,
		Status: b.Status, Conclusion: b.Conclusion}
	if res.HeadBranch == "" && b.CheckSuite != nil {
		res.HeadBranch = b.CheckSuite.HeadBranch
	}
	for _, pr := range b.PullRequests {
		if pr.Head.Ref == res.HeadBranch && pr.Number > 0 {
			res.PullRequests = append(res.PullRequests, pr.Number)
		}
	}
	return res, nil
}

// CITrigger reports the pull request whose CI result asks CogWorks to
// act on it, and otherwise why not, without a GitHub request: only a
// completed run that failed (failure or timed_out) or was cancelled on a
// cogworks/ branch with a pull request of the repository's own. A
// cancelled run is the infrastructure's: it spends no cycle, but its
// failed jobs may be re-run once. A stale run, one that could not start
// (nothing to re-run) or one awaiting approval starts nothing. Whether
// the pull request is CogWorks's, whether the failure is the code's (its
// log may show a lost runner) and whether the head is still the one that
// failed, the revision checks itself.
func (c CIResult) CITrigger() (pr int, headSHA string, ignore string) {
	if c.Action != "completed" {
		return 0, "", fmt.Sprintf("%s %q: only a completed run is read", c.Event, c.Action)
	}
	switch c.Conclusion {
	case "failure", "timed_out", "cancelled":
	case "stale", "startup_failure", "action_required":
		return 0, "", fmt.Sprintf("%s %d concluded %s: the infrastructure's, not the code's, and nothing CogWorks re-runs; no revision", c.Event, c.ID, c.Conclusion)
	default:
		return 0, "", fmt.Sprintf("%s %d concluded %q: nothing to fix", c.Event, c.ID, c.Conclusion)
	}
	if !ownBranch(c.HeadBranch) {
		return 0, "", fmt.Sprintf("%s %d ran on %q, not a CogWorks branch", c.Event, c.ID, c.HeadBranch)
	}
	if len(c.PullRequests) == 0 {
		return 0, "", fmt.Sprintf("%s %d names no pull request of this repository for %q", c.Event, c.ID, c.HeadBranch)
	}
	return c.PullRequests[0], c.HeadSHA, ""
}

// CIEventOf names the CI event a payload came with, from its shape ("" for
// any other payload), for the Action, which reads the payload file alone.
// A check run's payload names its suite inside the run, so the top-level
// member decides.
func CIEventOf(data []byte) string {
	var r ciRaw
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	switch {
	case r.Run != nil:
		return "check_run"
	case r.WRun != nil:
		return "workflow_run"
	case r.Suite != nil:
		return "check_suite"
	}
	return ""
}
