package githubsim

import (
	"net/http"
	"strings"
)

// Route is one endpoint the simulator serves, as registered on its mux.
type Route struct {
	// Method and Path are the net/http pattern ("{x...}" wildcards match
	// the rest of the path).
	Method, Path string
	// Operations are the path templates of GitHub's REST description this
	// route answers, wildcard names aside: the pattern itself, or, for a
	// route that dispatches on a path segment (two operations whose
	// patterns would conflict on the mux), each template it dispatches to.
	Operations []string
	// NotREST says why the route is no REST operation (GraphQL, the
	// archive download host); such routes have no Operations.
	NotREST string
}

// Routes lists every endpoint the simulator serves, in registration
// order. The OpenAPI conformance tests (package openapi) check each
// against GitHub's description.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routeTable...) }

// handle registers pattern ("METHOD /path") on the mux. ops are the
// GitHub templates a dispatching route serves; by default the route
// serves its own pattern.
func (s *Server) handle(pattern string, h http.HandlerFunc, ops ...string) {
	s.mux.HandleFunc(pattern, h)
	method, path, _ := strings.Cut(pattern, " ")
	if len(ops) == 0 {
		ops = []string{strings.ReplaceAll(path, "...}", "}")}
	}
	s.routeTable = append(s.routeTable, Route{Method: method, Path: path, Operations: ops})
}

// handleNotREST registers a route that is no operation of the REST API.
func (s *Server) handleNotREST(pattern string, h http.HandlerFunc, why string) {
	s.mux.HandleFunc(pattern, h)
	method, path, _ := strings.Cut(pattern, " ")
	s.routeTable = append(s.routeTable, Route{Method: method, Path: path, NotREST: why})
}

// routes registers every endpoint on the internal mux.
func (s *Server) routes() {
	const rp = "/repos/{owner}/{repo}"
	s.handle("GET /user", s.handleUser)
	s.handleNotREST("POST /graphql", s.handleGraphQL, "GraphQL API (github.com)")
	s.handleNotREST("POST /api/graphql", s.handleGraphQL, "GraphQL API (GitHub Enterprise Server)")
	s.handle("GET /users/{login}", s.handleGetUser)
	s.handle("GET /rate_limit", s.handleRateLimit)
	s.handle("GET /app", s.handleGetApp)
	s.handle("POST /app/installations/{id}/access_tokens", s.handleInstallationToken)
	s.handle("GET /app/hook/deliveries", s.handleListHookDeliveries)
	s.handle("POST /app/hook/deliveries/{delivery_id}/attempts", s.handleRedeliverHookDelivery)
	s.handle("GET "+rp, s.repoHandler(s.getRepo))

	s.handle("GET "+rp+"/labels", s.repoHandler(s.listRepoLabels))
	s.handle("POST "+rp+"/labels", s.repoHandler(s.createRepoLabel))
	s.handle("GET "+rp+"/labels/{name}", s.repoHandler(s.getRepoLabel))
	s.handle("PATCH "+rp+"/labels/{name}", s.repoHandler(s.editRepoLabel))
	s.handle("DELETE "+rp+"/labels/{name}", s.repoHandler(s.deleteRepoLabel))

	s.handle("GET "+rp+"/issues", s.repoHandler(s.listIssues))
	s.handle("POST "+rp+"/issues", s.repoHandler(s.createIssue))
	s.handle("GET "+rp+"/issues/{number}", s.repoHandler(s.getIssue))
	s.handle("PATCH "+rp+"/issues/{number}", s.repoHandler(s.editIssue))
	s.handle("POST "+rp+"/issues/{number}/labels", s.repoHandler(s.addIssueLabels))
	s.handle("PUT "+rp+"/issues/{number}/labels", s.repoHandler(s.setIssueLabels))
	s.handle("DELETE "+rp+"/issues/{number}/labels/{name}", s.repoHandler(s.removeIssueLabel))
	s.handle("POST "+rp+"/issues/{number}/comments", s.repoHandler(s.createComment))
	s.handle("GET "+rp+"/issues/comments", s.repoHandler(s.listRepoComments))
	s.handle("PATCH "+rp+"/issues/comments/{id}", s.repoHandler(s.editComment))
	s.handle("POST "+rp+"/issues/comments/{id}/reactions", s.repoHandler(s.createReaction))
	s.handle("POST "+rp+"/issues/{number}/sub_issues", s.repoHandler(s.addSubIssue))

	// issues/comments/{id} and issues/{number}/<sub> overlap, so they share
	// one dispatcher per method.
	s.handle("GET "+rp+"/issues/{a}/{b}", s.repoHandler(s.issuesTwoSegments(map[string]func(*call){
		"labels": s.listIssueLabels, "comments": s.listComments, "events": s.listEvents,
		"sub_issues": s.listSubIssues,
	}, s.getComment)),
		rp+"/issues/{number}/labels", rp+"/issues/{number}/comments", rp+"/issues/{number}/events",
		rp+"/issues/{number}/sub_issues", rp+"/issues/comments/{id}")
	s.handle("DELETE "+rp+"/issues/{a}/{b}", s.repoHandler(s.issuesTwoSegments(map[string]func(*call){
		"labels": s.clearIssueLabels, "sub_issue": s.removeSubIssue,
	}, s.deleteComment)),
		rp+"/issues/{number}/labels", rp+"/issues/{number}/sub_issue", rp+"/issues/comments/{id}")
	s.handle("GET "+rp+"/collaborators/{user}/permission", s.repoHandler(s.getPermission))
	s.handle("GET "+rp+"/collaborators/{user}", s.repoHandler(s.isCollaborator))
	s.handle("GET /search/issues", s.handleSearchIssues)

	s.handle("GET "+rp+"/pulls", s.repoHandler(s.listPulls))
	s.handle("POST "+rp+"/pulls", s.repoHandler(s.createPull))
	s.handle("GET "+rp+"/pulls/{number}", s.repoHandler(s.getPull))
	s.handle("PATCH "+rp+"/pulls/{number}", s.repoHandler(s.editPull))
	s.handle("PUT "+rp+"/pulls/{number}/merge", s.repoHandler(s.mergePull))
	s.handle("GET "+rp+"/pulls/{number}/reviews", s.repoHandler(s.listReviews))
	s.handle("POST "+rp+"/pulls/{number}/reviews", s.repoHandler(s.createReview))
	s.handle("GET "+rp+"/pulls/{number}/comments", s.repoHandler(s.listReviewComments))
	s.handle("POST "+rp+"/pulls/{number}/comments/{id}/replies", s.repoHandler(s.replyReviewComment))
	s.handle("GET "+rp+"/pulls/{number}/files", s.repoHandler(s.listPullFiles))
	s.handle("PUT "+rp+"/pulls/{number}/update-branch", s.repoHandler(s.updatePullBranch))

	s.handle("GET "+rp+"/compare/{basehead}", s.repoHandler(s.compareCommits))
	s.handle("GET "+rp+"/commits/{ref}/check-runs", s.repoHandler(s.listCheckRunsForRef))
	s.handle("GET "+rp+"/commits/{ref}/check-suites", s.repoHandler(s.listCheckSuitesForRef))
	s.handle("GET "+rp+"/check-runs/{check_run_id}/annotations", s.repoHandler(s.listCheckRunAnnotations))
	s.handle("GET "+rp+"/actions/runs", s.repoHandler(s.listWorkflowRuns))
	s.handle("GET "+rp+"/actions/runs/{run_id}/jobs", s.repoHandler(s.listRunJobs))
	s.handle("POST "+rp+"/actions/runs/{run_id}/rerun-failed-jobs", s.repoHandler(s.rerunFailedJobs))
	s.handle("GET "+rp+"/actions/jobs/{job_id}/logs", s.repoHandler(s.downloadJobLogs))
	s.handleNotREST("GET "+logsPrefix+"{owner}/{repo}/jobs/{job_id}", s.repoHandler(s.getJobLogText),
		"job log download (a short-lived storage URL), where GET actions/jobs/{job_id}/logs redirects")

	s.handle("GET "+rp+"/git/matching-refs/{ref...}", s.repoHandler(s.matchingRefs))
	s.handle("GET "+rp+"/git/ref/{ref...}", s.repoHandler(s.getRef))
	s.handle("POST "+rp+"/git/refs", s.repoHandler(s.createRef))
	s.handle("PATCH "+rp+"/git/refs/{ref...}", s.repoHandler(s.updateRef))
	s.handle("DELETE "+rp+"/git/refs/{ref...}", s.repoHandler(s.deleteRef))
	s.handle("GET "+rp+"/git/commits/{sha}", s.repoHandler(s.getCommit))
	s.handle("POST "+rp+"/git/commits", s.repoHandler(s.createCommit))
	s.handle("GET "+rp+"/git/trees/{sha}", s.repoHandler(s.getTree))
	s.handle("POST "+rp+"/git/trees", s.repoHandler(s.createTree))
	s.handle("GET "+rp+"/git/blobs/{sha}", s.repoHandler(s.getBlob))
	s.handle("POST "+rp+"/git/blobs", s.repoHandler(s.createBlob))
	s.handle("GET "+rp+"/actions/permissions/workflow", s.repoHandler(s.getWorkflowPermissions))
	s.handle("GET "+rp+"/branches", s.repoHandler(s.listBranches))
	s.handle("GET "+rp+"/branches/{branch...}", s.repoHandler(s.getBranch))
	s.handle("GET "+rp+"/contents/{path...}", s.repoHandler(s.getContents))
	s.handle("GET "+rp+"/tarball/{ref...}", s.repoHandler(s.getTarball))
	s.handleNotREST("GET "+codeloadPrefix+"{owner}/{repo}/legacy.tar.gz/{sha}", s.repoHandler(s.getCodeload),
		"archive download (codeload.github.com), where GET /tarball redirects")
	s.handle("PUT "+rp+"/contents/{path...}", s.repoHandler(s.putContents))
	s.handle("DELETE "+rp+"/contents/{path...}", s.repoHandler(s.deleteContents))
}
