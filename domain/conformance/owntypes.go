package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Needed lists the methods the pipeline's stages cannot do without:
// code generation validates and simulates every change. normalise and
// review_rules are optional (a file is then kept as written, with no
// lint findings); extract_interfaces is needed only where the repository
// has an interface registry. A service without a Needed method passes its
// handshake and then halts the pipeline, so conformance fails it up front.
var Needed = []string{domain.MethodValidate, domain.MethodSimulate}

// PipelineMethods reports the Needed methods hs does not declare.
func PipelineMethods(hs domain.HandshakeResult) error {
	var missing []string
	for _, m := range Needed {
		if !hs.Supports(m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("service %q does not declare %s, which the pipeline calls (declared: %v; docs/domain-services.md)",
			hs.Name, strings.Join(missing, ", "), hs.Capabilities)
	}
	return nil
}

// samples are small valid files of common languages, sent when the
// fixtures carry no artifact of a type the service declares, so every
// service is called with files of its own types (not only extra.go).
var samples = map[string]string{
	".go":   "package conformance\n\n// Triple returns thrice v.\nfunc Triple(v int) int { return 3 * v }\n",
	".py":   "def triple(v: int) -> int:\n    \"\"\"Return thrice v.\"\"\"\n    return 3 * v\n",
	".ts":   "export function triple(v: number): number {\n  return 3 * v;\n}\n",
	".tsx":  "export function Triple(props: { v: number }) {\n  return <span>{3 * props.v}</span>;\n}\n",
	".js":   "export function triple(v) {\n  return 3 * v;\n}\n",
	".mjs":  "export function triple(v) {\n  return 3 * v;\n}\n",
	".rs":   "/// Returns thrice v.\npub fn triple(v: i64) -> i64 {\n    3 * v\n}\n",
	".java": "package conformance;\n\n/** Triples. */\npublic final class Extra {\n  public static int triple(int v) {\n    return 3 * v;\n  }\n}\n",
}

// OwnTypes returns req with one sample artifact ("conformance_extra<ext>",
// "Extra.java" for Java) for every extension type hs declares that no
// artifact of req has and a sample exists for.
func OwnTypes(hs domain.HandshakeResult, req domain.Request) domain.Request {
	req.Artifacts = slices.Clone(req.Artifacts)
	for _, typ := range hs.ArtifactTypes {
		content, ok := samples[typ]
		if !ok || slices.ContainsFunc(req.Artifacts, func(a domain.Artifact) bool { return strings.HasSuffix(a.Path, typ) }) {
			continue
		}
		name := "conformance_extra" + typ
		if typ == ".java" {
			name = "Extra.java"
		}
		req.Artifacts = append(req.Artifacts, domain.Artifact{Path: name, Content: content})
	}
	return req
}

// coversOwnTypes fails when no artifact of req is of a type hs declares:
// the suite would only ever send the service files it ignores.
func coversOwnTypes(hs domain.HandshakeResult, req domain.Request) error {
	if slices.ContainsFunc(req.Artifacts, func(a domain.Artifact) bool { return hs.Covers(a.Path) }) {
		return nil
	}
	return fmt.Errorf("no fixture artifact is of a type the service declares (%v): add one to Fixtures.Request", hs.ArtifactTypes)
}
