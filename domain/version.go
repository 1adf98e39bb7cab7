package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// Major returns the MAJOR component of a semver string ("1.4.2" ⇒ "1").
// A leading "v" is accepted.
func Major(version string) (string, error) {
	v := strings.TrimPrefix(version, "v")
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("version %q is not semver MAJOR.MINOR.PATCH", version)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return "", fmt.Errorf("version %q is not semver MAJOR.MINOR.PATCH: component %q is not a number", version, p)
		}
	}
	return parts[0], nil
}

// CompatibleAPI reports whether a service speaking serviceVersion can be used
// by a client requiring clientVersion: both must parse and share MAJOR.
func CompatibleAPI(clientVersion, serviceVersion string) error {
	want, err := Major(clientVersion)
	if err != nil {
		return fmt.Errorf("client API version: %w", err)
	}
	got, err := Major(serviceVersion)
	if err != nil {
		return fmt.Errorf("service API version: %w", err)
	}
	if want != got {
		return fmt.Errorf("service speaks Extension API %s but CogWorks requires %s (MAJOR %s)", serviceVersion, clientVersion, want)
	}
	return nil
}
