package status_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestStatusOutputs(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, out, _ := cmdtest.TestFactory(t, env)
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "3"))

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1", "--output", "mermaid"))
	assert.Contains(t, out.String(), "stateDiagram-v2")
	assert.Contains(t, out.String(), "class ", "current state highlighted")

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1", "--output", "json"))
	var snap pipeline.Snapshot
	require.NoError(t, json.Unmarshal(out.Bytes(), &snap))
	assert.Equal(t, pipeline.StageArchitecture, snap.Stage)
	require.NotNil(t, snap.Gate)

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1"))
	assert.Contains(t, out.String(), "stage: architecture")
	assert.Contains(t, out.String(), "waiting for cogworks:approve")

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--output", "mermaid"))
	assert.Contains(t, out.String(), "[*] --> wake_up", "the whole machine without an issue")
}

func TestStatusBadOutputExitsTwo(t *testing.T) {
	t.Parallel()
	f, _, _ := cmdtest.TestFactory(t, testenv.New(t))
	err := cmdtest.Execute(t, f, "status", "--repo", "a/b", "--issue", "1", "--output", "xml")
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err), err.Error())
}
