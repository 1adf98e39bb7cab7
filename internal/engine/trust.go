package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// State blocks and lock claims carry a MAC (package statesig) so that
// another writer sharing the bot's login cannot post state "as the bot".
// Blocks written before signing existed carry none: they are accepted
// only while the bot's login is its own (an App or a dedicated account,
// where no one else can write as it) and are re-signed by the next write;
// with the shared github-actions[bot] login an unsigned block is ignored.
// Without a key nothing is signed or verified and only the author check
// applies (cogworks doctor fails a shared login without a key).

const (
	macKindState = statesig.KindState
	macKindLock  = statesig.KindLock
)

// lockAtOpen prefixes the signed time of a lock claim.
const lockAtOpen = "<!-- cogworks:lock-at "

func (s *stepper) scope(kind string) statesig.Scope {
	return statesig.Scope{Kind: kind, Repo: s.ref.Repo.String(), Issue: s.ref.Issue}
}

// sealState appends the MAC of the status comment's state block. body is
// the comment as it will be written (already redacted); comment is the
// status comment's id, 0 when this write creates it.
func (s *stepper) sealState(body string, comment int64) string {
	body = statesig.StripMAC(body)
	block, ok := pipeline.SnapshotBlock(body)
	if len(s.d.StateKey) == 0 || !ok {
		return body
	}
	scope := s.scope(macKindState)
	scope.Comment = comment
	return strings.TrimRight(body, "\n") + "\n" + s.d.StateKey.Marker(scope, block) + "\n"
}

// sealClaim appends the signed time and MAC of this run's lock claim: the
// MAC covers the claim key (which names the run) and the time, so a copy
// of an old claim is stale however recently it was posted.
func (s *stepper) sealClaim(body, key string, at time.Time) string {
	if len(s.d.StateKey) == 0 {
		return body
	}
	stamp := at.UTC().Format(time.RFC3339Nano)
	return strings.TrimRight(body, "\n") + "\n" + lockAtOpen + stamp + " -->\n" +
		s.d.StateKey.Marker(s.scope(macKindLock), key+"\n"+stamp) + "\n"
}

// trusted decides whether a block the bot's login wrote is the bot's:
// text is what the MAC covers. A rejected block is logged, never acted on.
func (s *stepper) trusted(c github.Comment, kind, text string) bool {
	if len(s.d.StateKey) == 0 {
		return true
	}
	return s.accept(c, kind, s.d.StateKey.Verify(s.scope(kind), c.Body, text))
}

// accept applies statesig.Accept to a block's verification status st and
// logs a rejected block.
func (s *stepper) accept(c github.Comment, kind string, st statesig.Status) bool {
	if len(s.d.StateKey) == 0 {
		return true
	}
	switch {
	case statesig.Accept(s.d.StateKey, st, statesig.IsShared(s.d.BotLogin)):
		return true
	case st == statesig.Unsigned:
		s.d.logger().Warn("ignoring an unsigned "+kind+" block: the login is shared, so it may not be CogWorks's",
			"issue", s.ref.Issue, "comment", c.ID, "login", c.User)
		return false
	default:
		s.d.logger().Warn("ignoring a "+kind+" block whose MAC does not verify: it is not CogWorks's",
			"issue", s.ref.Issue, "comment", c.ID, "login", c.User, "mac", st.String())
		return false
	}
}

// trustedClaim checks a lock claim's MAC and signed time; at is when
// GitHub says it was last written. A claim signed more than a lock
// timeout away from that time is a replayed copy.
func (s *stepper) trustedClaim(c github.Comment, key string, at time.Time) bool {
	if len(s.d.StateKey) == 0 {
		return true
	}
	stamp, signed := claimStamp(c.Body)
	if !signed {
		return s.trusted(c, macKindLock, "")
	}
	if !s.trusted(c, macKindLock, key+"\n"+stamp) {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		s.d.logger().Warn("ignoring a lock claim with an unreadable signed time", "issue", s.ref.Issue, "comment", c.ID, "error", err)
		return false
	}
	if d := at.Sub(t); d > s.policy().Timeout || -d > s.policy().Timeout {
		s.d.logger().Warn("ignoring a replayed lock claim", "issue", s.ref.Issue, "comment", c.ID,
			"signed_at", stamp, "written_at", at.Format(time.RFC3339))
		return false
	}
	return true
}

// claimStamp returns the signed time text of a claim body.
func claimStamp(body string) (string, bool) {
	i := strings.Index(body, lockAtOpen)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(lockAtOpen):]
	j := strings.Index(rest, " -->")
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// sharedIdentityWarning is shown in the status comment while the bot
// writes as a login other workflows share.
func sharedIdentityWarning(login string) string {
	return fmt.Sprintf("CogWorks writes as `%s`, a login every workflow of this repository shares: anything another workflow posts looks like CogWorks's. Install the CogWorks GitHub App (or use a dedicated account) so that CogWorks has an identity of its own.", login)
}
