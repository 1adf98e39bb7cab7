package xval

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/finding"
)

// ServiceInfo is what registry checks need to know about a registered
// domain service (from its handshake).
type ServiceInfo struct {
	// Name is the service's name, used in messages (optional).
	Name   string
	Domain string
	// InterfaceVersions maps an interface id (or an interface type) to the
	// versions the service supports: "2", "v2", "2.x", "2.1" or "2.1.0".
	InterfaceVersions map[string][]string
}

// Check runs the registry consistency checks (ASSERT-XDOM-001/003):
//   - unique ids: blocking, naming both files;
//   - conflicting constraints: two interfaces of the same type constraining
//     a parameter of the same name and kind incompatibly (different exact or
//     bool values with the same unit, disjoint tolerance ranges, an exact
//     value outside another's tolerance range, disjoint enum allowed sets):
//     blocking;
//   - a domain (owner or participant) with no registered service, unless it
//     is "external": warning (validation still works without it,
//     ASSERT-XVAL-005, ASSERT-EXT-002);
//   - a service of a participating domain that lists supported versions for
//     the interface (by id, else by type) but none compatible with the
//     registry version: blocking. Compatible means the same MAJOR version
//     and, when the service names a minor (and patch), a registry version at
//     least that high.
//
// services == nil means "services unknown" and skips the last two checks;
// an empty non-nil slice means no service is registered.
func (r *Registry) Check(services []ServiceInfo) []Finding {
	var out []Finding
	out = append(out, r.checkUniqueIDs()...)
	out = append(out, r.checkConflicts()...)
	if services != nil {
		out = append(out, r.checkDomains(services)...)
		out = append(out, r.checkVersions(services)...)
	}
	sortFindings(out)
	return out
}

func (r *Registry) checkUniqueIDs() []Finding {
	var out []Finding
	first := map[string]Interface{}
	for _, iface := range r.interfaces() {
		prev, dup := first[iface.ID]
		if !dup {
			first[iface.ID] = iface
			continue
		}
		out = append(out, Finding{
			Severity:    finding.Blocking,
			InterfaceID: iface.ID,
			OwnerDomain: iface.Owner,
			Artifact:    iface.File,
			Message:     fmt.Sprintf("duplicate interface id %s: defined in %s and %s", iface.ID, prev.File, iface.File),
		})
	}
	return out
}

func (r *Registry) checkConflicts() []Finding {
	var out []Finding
	ifs := r.interfaces()
	for i := range ifs {
		for j := i + 1; j < len(ifs); j++ {
			a, b := ifs[i], ifs[j]
			if a.Type != b.Type || a.ID == b.ID {
				continue
			}
			for _, name := range a.ParameterNames() {
				pb, ok := b.Parameters[name]
				if !ok {
					continue
				}
				pa := a.Parameters[name]
				if why := conflict(pa, pb); why != "" {
					out = append(out, Finding{
						Severity:    finding.Blocking,
						InterfaceID: b.ID,
						Parameter:   name,
						Expected:    pa.Expected(),
						Actual:      pb.Expected(),
						OwnerDomain: b.Owner,
						Artifact:    b.File,
						Message: fmt.Sprintf("conflicting constraint on %s parameter %s: %s (%s) and %s (%s) %s",
							a.Type, name, a.ID, a.File, b.ID, b.File, why),
					})
				}
			}
		}
	}
	return out
}

// conflict explains why two constraints on the same parameter cannot both
// hold, or returns "" when they are compatible or not comparable.
func conflict(a, b Parameter) string {
	if a.Unit != b.Unit {
		return "" // different units are not comparable without conversion
	}
	aMin, aMax, aNum := numRange(a)
	bMin, bMax, bNum := numRange(b)
	switch {
	case aNum && bNum:
		if aMax < bMin && !numEqual(aMax, bMin) || bMax < aMin && !numEqual(bMax, aMin) {
			return fmt.Sprintf("allow disjoint ranges [%s, %s] and [%s, %s]", formatNum(aMin), formatNum(aMax), formatNum(bMin), formatNum(bMax))
		}
	case a.Kind != b.Kind:
		return ""
	case a.Kind == KindExact || a.Kind == KindBool:
		if !scalarEqual(a.Value, b.Value) {
			return fmt.Sprintf("require different values %s and %s", formatValue(a.Value), formatValue(b.Value))
		}
	case a.Kind == KindEnum:
		for _, x := range a.Allowed {
			if contains(b.Allowed, x) {
				return ""
			}
		}
		return fmt.Sprintf("have no allowed value in common ([%s] vs [%s])", joinQuoted(a.Allowed), joinQuoted(b.Allowed))
	}
	return ""
}

// numRange returns the numeric range a tolerance or numeric exact
// parameter allows.
func numRange(p Parameter) (lo, hi float64, ok bool) {
	switch p.Kind {
	case KindTolerance:
		return p.Min, p.Max, true
	case KindExact:
		if f, isNum := p.Value.(float64); isNum {
			return f, f, true
		}
	}
	return 0, 0, false
}

func (r *Registry) checkDomains(services []ServiceInfo) []Finding {
	have := map[string]bool{}
	for _, s := range services {
		have[s.Domain] = true
	}
	var out []Finding
	for _, iface := range r.interfaces() {
		for _, d := range iface.Domains() {
			if d == ExternalDomain || have[d] {
				continue
			}
			out = append(out, Finding{
				Severity:    finding.Warning,
				InterfaceID: iface.ID,
				OwnerDomain: iface.Owner,
				Artifact:    iface.File,
				Message:     fmt.Sprintf("domain %q has no registered domain service; its side of the contract is not validated (mark it \"external\" if no service will ever exist)", d),
			})
		}
	}
	return out
}

func (r *Registry) checkVersions(services []ServiceInfo) []Finding {
	var out []Finding
	for _, iface := range r.interfaces() {
		domains := map[string]bool{}
		for _, d := range iface.Domains() {
			domains[d] = true
		}
		for _, s := range services {
			if !domains[s.Domain] {
				continue
			}
			supported, ok := s.InterfaceVersions[iface.ID]
			if !ok {
				supported, ok = s.InterfaceVersions[iface.Type]
			}
			if !ok || len(supported) == 0 {
				continue
			}
			if versionSupported(iface.Version, supported) {
				continue
			}
			name := s.Name
			if name == "" {
				name = s.Domain
			}
			out = append(out, Finding{
				Severity:        finding.Blocking,
				InterfaceID:     iface.ID,
				Expected:        strings.Join(supported, ", "),
				Actual:          iface.Version,
				OwnerDomain:     iface.Owner,
				ViolatingDomain: s.Domain,
				Artifact:        iface.File,
				Message: fmt.Sprintf("interface version mismatch: registry has %s version %s but domain service %s supports %s",
					iface.ID, iface.Version, name, strings.Join(supported, ", ")),
			})
		}
	}
	return out
}

// versionSupported reports whether version matches any of the supported
// version specs (see ServiceInfo.InterfaceVersions).
func versionSupported(version string, supported []string) bool {
	have, ok := parseVersion(version)
	if !ok {
		return false
	}
	for _, spec := range supported {
		want, ok := parseVersion(spec)
		if !ok || want[0] != have[0] {
			continue
		}
		if want[1] < 0 || have[1] > want[1] || have[1] == want[1] && (want[2] < 0 || have[2] >= want[2]) {
			return true
		}
	}
	return false
}

// parseVersion parses "v2", "2", "2.x", "2.1", "2.1.0" (pre-release and
// build suffixes ignored) into [major, minor, patch]; unspecified parts are
// -1.
func parseVersion(s string) ([3]int, bool) {
	v := [3]int{-1, -1, -1}
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		if p == "x" || p == "*" {
			if i == 0 {
				return v, false
			}
			break
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// CheckRefs checks that every ref parameter is a URL (http or https with a
// host) or a clean repository-relative path that exists in repo.
func (r *Registry) CheckRefs(repo fs.FS) []Finding {
	var out []Finding
	for _, iface := range r.interfaces() {
		for _, name := range iface.ParameterNames() {
			p := iface.Parameters[name]
			if p.Kind != KindRef {
				continue
			}
			if why := refProblem(repo, p.Ref); why != "" {
				out = append(out, Finding{
					Severity:    finding.Blocking,
					InterfaceID: iface.ID,
					Parameter:   name,
					Expected:    "an existing repository path or an http(s) URL",
					Actual:      p.Ref,
					OwnerDomain: iface.Owner,
					Artifact:    iface.File,
					Message:     fmt.Sprintf("unresolvable reference %q: %s", p.Ref, why),
				})
			}
		}
	}
	sortFindings(out)
	return out
}

func refProblem(repo fs.FS, ref string) string {
	if u, err := url.Parse(ref); err == nil && u.Scheme != "" {
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return ""
		}
		return fmt.Sprintf("unsupported URL scheme %q", u.Scheme)
	}
	p := strings.TrimPrefix(ref, "./")
	if path.IsAbs(p) || !fs.ValidPath(p) {
		return "path must be relative to the repository root and stay inside it"
	}
	if repo == nil {
		return ""
	}
	if _, err := fs.Stat(repo, p); err != nil {
		return "file does not exist in the repository"
	}
	return ""
}
