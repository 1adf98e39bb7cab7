package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/scenario"
)

func TestChangedExported(t *testing.T) {
	t.Parallel()
	const old = "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() {}\n"
	tests := []struct {
		name, now string
		want      []string
	}{
		{"unchanged", old, nil},
		{"a body rewritten", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 20 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() {}\n", []string{"B"}},
		{"a method and a constant", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 4\n\ntype D struct{}\n\nfunc (D) M() { _ = 1 }\n\nfunc hidden() {}\n", []string{"C", "M"}},
		{"removed and added", "package p\n\nfunc E() {}\n", []string{"A", "B", "C", "D", "E", "M"}},
		{"unexported only", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() { _ = 2 }\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, changedExported("p/p.go", old, tt.now))
		})
	}
}

func TestScenarioTests(t *testing.T) {
	t.Parallel()
	src := "package p\n\nimport \"testing\"\n\nfunc TestScenarioA(t *testing.T) {}\n\nfunc TestOther(t *testing.T) {}\n"
	run := scenario.Run{Filter: "TestScenario", Overlay: map[string]string{"p/zz_test.go": src, "p/data.json": "{}"}}
	got := scenarioTests(run)
	assert.Len(t, got, 1)
	assert.Equal(t, "TestScenarioA", got[0].Name, "only the tests the filter selects are required")
}
