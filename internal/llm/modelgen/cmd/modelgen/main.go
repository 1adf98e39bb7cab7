// Command modelgen writes internal/llm's models.json and models_source.go
// from the sources modelgen.Build merges; `go generate ./internal/llm`
// runs it after modelgen/fetch.sh has refreshed the genai-prices dump.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cogworks/cogworks/internal/llm/modelgen"
)

func main() {
	genai := flag.String("genai", "modelgen/testdata/genai-prices.json", "dump of @pydantic/genai-prices (fetch.sh)")
	litellm := flag.String("litellm", "modelgen/testdata/litellm.json", "LiteLLM-format model table")
	life := flag.String("lifecycle", "modelgen/lifecycle.json", "hand-kept lifecycle overlay")
	outJSON := flag.String("json", "models.json", "table to write")
	outGo := flag.String("go", "models_source.go", "Go file dating the table")
	flag.Parse()
	if err := run(*genai, *litellm, *life, *outJSON, *outGo); err != nil {
		fmt.Fprintln(os.Stderr, "modelgen:", err)
		os.Exit(1)
	}
}

func run(genai, litellm, life, outJSON, outGo string) error {
	var src modelgen.Sources
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{{genai, &src.GenAIPrices}, {litellm, &src.LiteLLM}, {life, &src.Lifecycle}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return fmt.Errorf("read source: %w", err)
		}
		*f.dst = data
	}
	out, err := modelgen.Build(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(outJSON, out.ModelsJSON, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := os.WriteFile(outGo, out.GoSource, 0o644); err != nil {
		return fmt.Errorf("write source file: %w", err)
	}
	return nil
}
