package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mini is a two-path description in the dereferenced form @octokit/openapi
// ships: prose, examples and one large titled schema used twice.
const mini = `{
 "openapi": "3.0.3",
 "paths": {
  "/repos/{owner}/{repo}/issues/{issue_number}": {
   "get": {"operationId": "issues/get", "description": "Gets an issue.",
    "parameters": [{"name": "owner", "in": "path", "required": true, "schema": {"type": "string"}, "description": "owner"},
                   {"name": "accept", "in": "header", "schema": {"type": "string"}}],
    "responses": {"200": {"description": "Response", "content": {"application/json": {"schema": ISSUE, "examples": {"default": {"value": {}}}}}},
                  "404": {"description": "Resource not found", "content": {"application/json": {"schema": {"type": "object", "properties": {"message": {"type": "string"}}}}}}}},
   "patch": {"operationId": "issues/update",
    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {"title": {"type": "string", "description": "The title."}, "description": {"type": "string"}}}}}},
    "responses": {"200": {"description": "Response", "content": {"application/json": {"schema": ISSUE}}}}},
   "delete": {"operationId": "issues/unused", "responses": {"204": {"description": "gone"}}}
  },
  "/repos/{owner}/{repo}/tarball/{ref}": {
   "get": {"operationId": "repos/download-tarball-archive", "responses": {"302": {"description": "Response"}}}
  }
 }
}`

func miniDoc(t *testing.T) map[string]any {
	t.Helper()
	issue := `{"title": "Issue", "description": "Issues are a great way to keep track of tasks.", "type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "example": 1}, "title": {"type": "string"}, "body": {"type": "string", "nullable": true}, "pad": {"type": "string", "enum": ["` + strings.Repeat("x", internMin) + `"]}}}`
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.ReplaceAll(mini, "ISSUE", issue)), &doc))
	return doc
}

func TestTrimKeepsWhatValidatesAndDropsProse(t *testing.T) {
	doc := miniDoc(t)
	out, err := trim(doc, []op{{"get", "/repos/{owner}/{repo}/issues/{number}"}, {"patch", "/repos/{owner}/{repo}/issues/{number}"}})
	require.NoError(t, err)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	text := string(b)
	for _, gone := range []string{"Gets an issue", "great way", `"example"`, `"examples"`, "issues/unused", "tarball", `"accept"`} {
		assert.NotContains(t, text, gone)
	}

	paths := out["paths"].(map[string]any)
	item := paths["/repos/{owner}/{repo}/issues/{issue_number}"].(map[string]any)
	assert.Equal(t, []string{"GET", "DELETE", "PATCH"}, item["x-methods"], "every method GitHub serves there, used or not")
	get := item["get"].(map[string]any)
	schema := get["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/issue"}, schema, "a large titled schema is shared")
	issue := out["components"].(map[string]any)["schemas"].(map[string]any)["issue"].(map[string]any)
	assert.Equal(t, []any{"id"}, issue["required"])
	assert.Equal(t, true, issue["properties"].(map[string]any)["body"].(map[string]any)["nullable"])
	assert.Len(t, out["components"].(map[string]any)["schemas"], 1, "the patch answer reuses it")

	patch := item["patch"].(map[string]any)
	body := patch["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	assert.Contains(t, body["properties"], "description", "a property called description is a field, not prose")
	assert.NotContains(t, body["properties"].(map[string]any)["title"], "description")
}

func TestTrimRefusesAnOperationGitHubDoesNotHave(t *testing.T) {
	_, err := trim(miniDoc(t), []op{{"post", "/repos/{owner}/{repo}/issues/{n}"}})
	assert.ErrorContains(t, err, "GitHub's description has no such operation")
	_, err = trim(miniDoc(t), []op{{"get", "/repos/{owner}/{repo}/git/refs"}})
	assert.ErrorContains(t, err, "no path like")
}

func TestCompareGHESListsWhatAnEnterpriseDescriptionLacksOrTakesOtherwise(t *testing.T) {
	full, ghes := miniDoc(t), miniDoc(t)
	item := ghes["paths"].(map[string]any)["/repos/{owner}/{repo}/issues/{issue_number}"].(map[string]any)
	patch := item["patch"].(map[string]any)
	patch["requestBody"].(map[string]any)["required"] = false
	patch["description"] = "prose differs, which does not count"
	lacks, differs, err := compareGHES(full, ghes, []op{
		{"get", "/repos/{owner}/{repo}/issues/{issue_number}"},
		{"patch", "/repos/{owner}/{repo}/issues/{issue_number}"},
		{"post", "/repos/{owner}/{repo}/issues/{issue_number}"},
		{"get", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", "POST /repos/{owner}/{repo}/issues/{issue_number}"}, lacks)
	assert.Equal(t, []string{"PATCH /repos/{owner}/{repo}/issues/{issue_number}: request body"}, differs)
}
