package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDomains(t *testing.T) {
	cfg, err := Parse("config.toml", []byte(`
[[domains]]
name = "backend"
preset = "python"
test = "python3 -m pytest -q"

[[domains]]
name = "plc"
artifact_types = [".st"]
lint = "plc-lint --sarif"
lint_output = "sarif"
`))
	require.NoError(t, err)
	require.Len(t, cfg.Domains, 2)
	assert.Equal(t, Domain{Name: "backend", Preset: "python", Test: "python3 -m pytest -q"}, cfg.Domains[0])
	assert.Equal(t, []string{".st"}, cfg.Domains[1].ArtifactTypes)
	assert.Equal(t, "sarif", cfg.Domains[1].LintOutput)
}

func TestParseDomainsErrorsNameFileFieldAndValue(t *testing.T) {
	tests := []struct {
		name, toml string
		want       []string
	}{
		{"unknown preset", "[[domains]]\nname = \"a\"\npreset = \"cobol\"\n",
			[]string{"config.toml", "domains[0].preset", `"cobol"`}},
		{"missing name", "[[domains]]\npreset = \"python\"\n",
			[]string{"config.toml", "domains[0].name", "required"}},
		{"duplicate name", "[[domains]]\nname = \"a\"\npreset = \"python\"\n[[domains]]\nname = \"a\"\npreset = \"rust\"\n",
			[]string{"domains[1].name", `"a"`, "domains[0]"}},
		{"no types without preset", "[[domains]]\nname = \"a\"\ntest = \"make test\"\n",
			[]string{"domains[0].artifact_types", "required"}},
		{"bad type", "[[domains]]\nname = \"a\"\npreset = \"python\"\nartifact_types = [\"src/*.py\"]\n",
			[]string{"domains[0].artifact_types", `"src/*.py"`}},
		{"bad lint output", "[[domains]]\nname = \"a\"\npreset = \"python\"\nlint_output = \"xml\"\n",
			[]string{"domains[0].lint_output", `"xml"`}},
		{"bad test output", "[[domains]]\nname = \"a\"\npreset = \"python\"\ntest_output = \"tap\"\n",
			[]string{"domains[0].test_output", `"tap"`}},
		{"test_one without placeholder", "[[domains]]\nname = \"a\"\npreset = \"python\"\ntest_one = \"pytest -k\"\n",
			[]string{"domains[0].test_one", `"pytest -k"`, "{filter}"}},
		{"no command", "[[domains]]\nname = \"a\"\nartifact_types = [\".st\"]\n",
			[]string{"domains[0]", "no command"}},
		{"unknown key", "[[domains]]\nname = \"a\"\npreset = \"python\"\ntests = \"x\"\n",
			[]string{"config.toml", "domains.tests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("config.toml", []byte(tt.toml))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
