package domain

// RepoMapResult is the result of repo_map (since 1.1.0): a map of the
// repository for localisation, read from source without executing any of
// it. It covers every package of the service's language, the root
// package included, test files too (they name what a change must keep
// passing).
type RepoMapResult struct {
	// Module is the module (or project) path, "" when there is none.
	Module   string       `json:"module"`
	Packages []MapPackage `json:"packages"`
	// Diagnostics reports files that could not be read or parsed; they are
	// listed without symbols.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// MapPackage is one package of the repository map.
type MapPackage struct {
	// Dir is the repository-relative directory ("." for the root).
	Dir string `json:"dir"`
	// ImportPath is how other packages import it.
	ImportPath string `json:"import_path"`
	// Name is the package clause's name.
	Name string `json:"name"`
	// Imports lists the import paths its files import, sorted, unique.
	Imports []string  `json:"imports"`
	Files   []MapFile `json:"files"`
}

// MapFile is one source file and the declarations it holds.
type MapFile struct {
	Path    string   `json:"path"`
	Test    bool     `json:"test"`
	Lines   int      `json:"lines"`
	Symbols []Symbol `json:"symbols"`
}

// Symbol is one top-level declaration, exported or not.
type Symbol struct {
	// Kind is one of type, func, method, const, var.
	Kind string `json:"kind" jsonschema:"enum=type,enum=func,enum=method,enum=const,enum=var"`
	// Name is the identifier; methods are Recv.Name.
	Name string `json:"name"`
	// Signature is the declaration on one line, without body or doc.
	Signature string `json:"signature"`
	Line      int    `json:"line"`
}
