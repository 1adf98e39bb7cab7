// Package revision revises CogWorks's own pull requests on review
// feedback (issue 28, docs/commands.md "Review feedback"): the inline
// review comments of people with write permission (and of allow-listed
// bots, [revision] trusted_bots) on a PR the bot opened become the
// feedback of one code-generation attempt on the PR's own branch; the
// result is one follow-up commit on that branch (never a force-push, so a
// human's commits stay) and one reply per thread saying what changed or
// why not. A review whose body is its only feedback counts like a
// thread and is answered on the conversation. On the specification and
// interface PRs, while their gate waits, the feedback goes to the design
// stage's own LLM call instead (Designer), validated as the stage
// validates it; once approved or merged they are answered and left alone.
//
// A cycle is bounded ([revision] max_cycles per PR, one cap shared with
// the CI-feedback cycles of CIReviser, cap.go; a cycle that changes
// nothing escalates) and crash-safe without any state of its own: the
// commit carries a trailer naming its PR, cycle and threads (and the
// replies it owes), and each reply a marker naming its cycle and thread,
// both read back from GitHub before anything is written, so a re-run
// after a crash between push and reply neither commits nor replies twice.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package revision
