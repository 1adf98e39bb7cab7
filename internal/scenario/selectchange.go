package scenario

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Change is what a sub-work-item's change touches, as CogWorks computed it
// from the diff (never from the model's plan): the paths it wrote or
// deleted, the exported symbols it declares, changes or removes, and the
// interface ids it concerns (those the approved interface design assigned
// to it and those its files bind with //cogworks:contract).
type Change struct {
	Paths      []string
	Symbols    []string
	Interfaces []string
}

// Selection is the scenarios that apply to a change, and why each of the
// others does not.
type Selection struct {
	Selected []Scenario
	// Ran says, per selected scenario, why it applies ("SCN-1: runs
	// package ./telemetry, which the change touches").
	Ran []string
	// NotApplied says, per other scenario, why it does not apply.
	NotApplied []string
}

// SelectChange returns, in their original order, the scenarios that
// exercise what c touches: a scenario applies when it covers one of c's
// interfaces, when it runs a package (or puts its files in a directory)
// holding a changed path, or when its own files use one of c's exported
// symbols. A change that touches no scenario's code selects none, and
// the selection says why for each.
func SelectChange(all []Scenario, c Change) Selection {
	var sel Selection
	for _, sc := range all {
		if why := applies(sc, c); why != "" {
			sel.Selected = append(sel.Selected, sc)
			sel.Ran = append(sel.Ran, fmt.Sprintf("%s: %s", sc.ID, why))
			continue
		}
		sel.NotApplied = append(sel.NotApplied, fmt.Sprintf("%s: covers none of the change's interfaces, runs none of its packages and uses none of its exported symbols", sc.ID))
	}
	return sel
}

// applies says why sc exercises c, "" when it does not.
func applies(sc Scenario, c Change) string {
	for _, id := range sc.Covers {
		if slices.Contains(c.Interfaces, id) {
			return "covers interface " + id + ", which the change concerns"
		}
	}
	for _, p := range sc.Run.Packages {
		for _, changed := range c.Paths {
			if inPackage(p, changed) {
				return fmt.Sprintf("runs package %s, which the change touches (%s)", p, changed)
			}
		}
	}
	for _, o := range sc.Run.Overlay {
		for _, changed := range c.Paths {
			if path.Dir(o.To) == path.Dir(changed) {
				return fmt.Sprintf("runs its test in %s, which the change touches (%s)", path.Dir(o.To)+"/", changed)
			}
		}
	}
	for _, sym := range c.Symbols {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(sym) + `\b`)
		for _, o := range sc.Run.Overlay {
			if re.MatchString(o.Content) {
				return fmt.Sprintf("uses %s, which the change declares or changes", sym)
			}
		}
	}
	return ""
}

// inPackage reports whether file lies in the package pattern pkg ("./x",
// "x", "./x/..." or "./..."; "." is the root directory).
func inPackage(pkg, file string) bool {
	pkg = strings.TrimPrefix(pkg, "./")
	dir := path.Dir(file)
	if rest, ok := strings.CutSuffix(pkg, "..."); ok {
		rest = strings.TrimSuffix(rest, "/")
		return rest == "" || rest == "." || dir == rest || strings.HasPrefix(dir, rest+"/")
	}
	if pkg == "" {
		pkg = "."
	}
	return dir == strings.TrimSuffix(pkg, "/")
}
