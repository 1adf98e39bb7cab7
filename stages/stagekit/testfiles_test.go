package stagekit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTestFileConventions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path     string
		test     bool
		siblings []string
	}{
		{path: "counter/counter.go", siblings: []string{"counter/counter_test.go"}},
		{path: "counter/counter_test.go", test: true},
		{path: "main.go", siblings: []string{"main_test.go"}},
		{path: "src/pkg/calc.py", siblings: []string{"src/pkg/test_calc.py", "src/pkg/calc_test.py", "tests/test_calc.py", "src/pkg/tests/test_calc.py"}},
		{path: "calc.py", siblings: []string{"test_calc.py", "calc_test.py", "tests/test_calc.py"}},
		{path: "tests/test_calc.py", test: true},
		{path: "tests/helpers.py", test: true},
		{path: "src/pkg/calc_test.py", test: true},
		{path: "conftest.py", test: true},
		{path: "web/app.ts", siblings: []string{"web/app.test.ts", "web/app.spec.ts", "web/__tests__/app.test.ts"}},
		{path: "web/app.spec.tsx", test: true},
		{path: "web/__tests__/app.js", test: true},
		{path: "README.md"},
		{path: "contest.go", siblings: []string{"contest_test.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			assert.Equal(t, tt.test, IsTestFile(tt.path))
			assert.Equal(t, tt.siblings, SiblingTests(tt.path))
		})
	}
}
