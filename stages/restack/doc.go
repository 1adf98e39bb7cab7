// Package restack keeps CogWorks's stack of pull requests mergeable
// (issue 28, point 4): when a lower pull request of the stack is merged,
// the pull requests based on its branch are retargeted onto the branch it
// was merged into; and each open pull request of CogWorks's that lacks
// commits of its base (the default branch moved) is brought up to date
// through GitHub's update-branch, which merges the base into the head.
// Restacker.Check says, with reads only, whether a pass has anything to
// do, so that an up-to-date stack costs no lock. Nothing is ever force-pushed or rebased: a human's
// commits on a CogWorks branch stay, under a merge commit.
//
// It is idempotent and keeps no state: a pull request already on the
// right base is not retargeted, and an up-to-date branch is left as it
// is, so a re-run (the cron, a redelivered event) writes nothing more.
// A merge conflict is reported by Restack; Resolver turns it into a
// revision whose feedback is the conflict (the files both sides changed,
// in their three versions), committed as a merge of the base into the
// branch and pushed as a fast-forward, announced by one comment on the
// pull request and capped per pull request by [revision] max_cycles
// (counted apart from the review and CI revisions, which share one cap);
// past the cap, or when the answer leaves a file unresolved, it is
// escalated to a maintainer with the conflicting files. Step runs both
// for the engine under the work item's lock.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package restack
