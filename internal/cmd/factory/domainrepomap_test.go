package factory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// mappingDomain is a recordingDomain that also offers repo_map.
type mappingDomain struct{ recordingDomain }

func (d mappingDomain) RepoMap(_ context.Context, req domain.Request) (domain.RepoMapResult, error) {
	*d.reqs = append(*d.reqs, req)
	return domain.RepoMapResult{Packages: []domain.MapPackage{{Dir: "pkg", Files: []domain.MapFile{{Path: "pkg/a.py"}}}}}, nil
}

// TestWrappersPassTheRepositoryMapOn: production wraps the router in
// TenantDomain (and InlineRepoDomain with --domain-inline-repo); before
// the wrappers had RepoMap, stagekit.LoadRepoMap's type assertion failed on
// them and planning and code generation never saw a repository map for
// any language.
func TestWrappersPassTheRepositoryMapOn(t *testing.T) {
	ws := t.TempDir()
	for name, wrap := range map[string]func(stagekit.Domain) stagekit.Domain{
		"tenant": func(d stagekit.Domain) stagekit.Domain { return factory.TenantDomain{Inner: d, Tenant: "repo/acme/w"} },
		"inline": func(d stagekit.Domain) stagekit.Domain { return factory.InlineRepoDomain{Inner: d} },
		"both": func(d stagekit.Domain) stagekit.Domain {
			return factory.TenantDomain{Inner: factory.InlineRepoDomain{Inner: d}, Tenant: "repo/acme/w"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var reqs []domain.Request
			d := wrap(mappingDomain{recordingDomain{reqs: &reqs}})
			m, err := stagekit.LoadRepoMap(context.Background(), stagekit.Deps{Domain: d, Workspace: ws}, "planning", nil)
			require.NoError(t, err)
			require.NotNil(t, m, "the wrapper hid repo_map")
			require.Len(t, m.Packages, 1)
			assert.Equal(t, "pkg/a.py", m.Packages[0].Files[0].Path)
			require.Len(t, reqs, 1)
		})
	}
	t.Run("inner without repo_map", func(t *testing.T) {
		var reqs []domain.Request
		d := factory.TenantDomain{Inner: recordingDomain{reqs: &reqs}}
		_, err := d.RepoMap(context.Background(), domain.Request{})
		var de *domain.Error
		require.True(t, errors.As(err, &de))
		assert.Equal(t, domain.CodeUnsupportedMethod, de.Code)
		m, err := stagekit.LoadRepoMap(context.Background(), stagekit.Deps{Domain: d, Workspace: ws}, "planning", nil)
		require.NoError(t, err)
		assert.Nil(t, m, "no repo_map means localise by directory")
	})
}
