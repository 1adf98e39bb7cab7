package pipeline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// branchPrefix starts the name of every branch CogWorks creates.
const branchPrefix = "cogworks/"

// ErrNotBranch is ParseBranch's answer for a branch whose name does not
// have the shape cogworks/<digits>/…: a person's branch, which CogWorks
// leaves alone.
var ErrNotBranch = errors.New("not a CogWorks branch")

// Branch is a branch CogWorks creates for a work item:
// cogworks/<Item>/<What> ("spec", "interfaces", "swi-2"). This is the one
// declaration of that shape: the stages name their branches through it,
// and the webhook, the revision and restack steps read head branches
// with ParseBranch.
type Branch struct {
	// Item is the work item's issue number (positive).
	Item int
	// What names the branch's content within the work item.
	What string
}

// String is the branch's name.
func (b Branch) String() string { return branchPrefix + strconv.Itoa(b.Item) + "/" + b.What }

// ParseBranch reads ref as a branch CogWorks created. A ref not of the
// shape cogworks/<digits>/… is ErrNotBranch; one of that shape whose
// number is not a work item (0, a leading zero, too large) is another
// error, since CogWorks never writes it.
func ParseBranch(ref string) (Branch, error) {
	rest, ok := strings.CutPrefix(ref, branchPrefix)
	if !ok {
		return Branch{}, ErrNotBranch
	}
	num, what, ok := strings.Cut(rest, "/")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return Branch{}, ErrNotBranch
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || num != strconv.Itoa(n) {
		return Branch{}, fmt.Errorf("branch %q: bad work item number", ref)
	}
	return Branch{Item: n, What: what}, nil
}

// WorkItemOfBranch is the work item N of a branch CogWorks created
// (cogworks/<N>/…), false for any other branch.
func WorkItemOfBranch(ref string) (int, bool) {
	b, err := ParseBranch(ref)
	return b.Item, err == nil
}
