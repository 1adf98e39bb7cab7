package langmap

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

func TestExported(t *testing.T) {
	tests := []struct {
		path string
		sym  domain.Symbol
		want bool
	}{
		{"a.py", domain.Symbol{Kind: "func", Name: "load", Signature: "def load()"}, true},
		{"a.py", domain.Symbol{Kind: "func", Name: "_helper", Signature: "def _helper()"}, false},
		{"a.py", domain.Symbol{Kind: "method", Name: "Cart.__init__", Signature: "def __init__(self)"}, true},
		{"a.py", domain.Symbol{Kind: "method", Name: "Cart._private", Signature: "def _private(self)"}, false},
		{"a.ts", domain.Symbol{Kind: "func", Name: "f", Signature: "export function f()"}, true},
		{"a.ts", domain.Symbol{Kind: "func", Name: "g", Signature: "function g()"}, false},
		{"a.tsx", domain.Symbol{Kind: "method", Name: "W.render", Signature: "render()"}, true},
		{"a.ts", domain.Symbol{Kind: "method", Name: "W.#secret", Signature: "#secret()"}, false},
		{"a.ts", domain.Symbol{Kind: "method", Name: "W.hidden", Signature: "private hidden()"}, false},
		{"a.rs", domain.Symbol{Kind: "func", Name: "new", Signature: "pub fn new()"}, true},
		{"a.rs", domain.Symbol{Kind: "func", Name: "helper", Signature: "pub(crate) fn helper()"}, true},
		{"a.rs", domain.Symbol{Kind: "func", Name: "inner", Signature: "fn inner()"}, false},
		{"A.java", domain.Symbol{Kind: "method", Name: "A.run", Signature: "public void run()"}, true},
		{"A.java", domain.Symbol{Kind: "method", Name: "A.check", Signature: "private static void check()"}, false},
		{"a.go", domain.Symbol{Kind: "func", Name: "Run", Signature: "func Run()"}, true},
		{"a.go", domain.Symbol{Kind: "func", Name: "run", Signature: "func run()"}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Exported(tt.path, tt.sym), "%s %s", tt.path, tt.sym.Signature)
	}
}
