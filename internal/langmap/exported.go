package langmap

import (
	"path"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Exported reports whether a symbol of the file at p is visible outside
// its module by the language's own rule, for callers that show other
// packages as their API only (the Go rule, an upper-case initial, hides
// nearly everything in these languages):
//   - Python: the name (a method's after the dot) does not start with an
//     underscore, dunder methods such as __init__ excepted;
//   - TypeScript/JavaScript: a top-level symbol is exported (`export …`),
//     a method is not private (`private`, `#name`);
//   - Rust: declared `pub` (trait methods without `pub` count as not);
//   - Java: not `private`.
//
// Files of other languages, Go included, use the upper-case rule.
func Exported(p string, s domain.Symbol) bool {
	name := s.Name
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return false
	}
	lang := languageOf(path.Base(p))
	if lang == nil {
		return strings.ToUpper(name[:1]) == name[:1] && strings.ToLower(name[:1]) != name[:1]
	}
	sig := s.Signature
	switch lang.name {
	case "python":
		return !strings.HasPrefix(name, "_") || strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
	case "typescript":
		if s.Kind == "method" {
			return !strings.HasPrefix(name, "#") && !strings.HasPrefix(sig, "private ") && !strings.HasPrefix(sig, "protected ")
		}
		return strings.HasPrefix(sig, "export ")
	case "rust":
		return strings.HasPrefix(sig, "pub ") || strings.HasPrefix(sig, "pub(")
	case "java":
		return !strings.HasPrefix(sig, "private ") && !strings.Contains(sig, " private ")
	}
	return false
}
