package githubsim

import (
	"path"
	"strings"
)

// SetBranchRuleset makes repo ("owner/name") refuse, as an active
// repository ruleset does, the creation and update of every branch whose
// name matches pattern (a glob as rulesets take it: "cogworks/**" covers
// every branch under cogworks/, "*" stops at a slash) and writes
// to it through the contents API. GitHub answers the git refs API with 422
// and the contents API with 409, both "Repository rule violations found"
// followed by the rule; CogWorks must report that as the ruleset it is,
// not as a race to retry. An empty pattern removes the ruleset.
func (s *Server) SetBranchRuleset(repo, pattern string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoLocked(repo); rp != nil {
		rp.rulesetPattern = pattern
	}
}

// rulesetRefuses answers the refusal and reports true when ref
// ("refs/heads/…" or a bare branch name) is covered by the repository's
// ruleset; rule is the sentence GitHub adds after its headline.
func (c *call) rulesetRefuses(ref string, status int, rule string) bool {
	if c.repo.rulesetPattern == "" {
		return false
	}
	if !rulesetCovers(c.repo.rulesetPattern, strings.TrimPrefix(ref, "refs/heads/")) {
		return false
	}
	c.message(status, "Repository rule violations found\n\n"+rule+"\n\n")
	return true
}

const (
	ruleCreation = "Cannot create ref due to creations being restricted."
	ruleUpdate   = "Cannot update this protected ref."
	rulePull     = "Changes must be made through a pull request."
)

// rulesetCovers matches branch against a ruleset's fnmatch-style pattern:
// a trailing "**" matches any rest, slashes included; otherwise path.Match.
func rulesetCovers(pattern, branch string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "**"); ok {
		return strings.HasPrefix(branch, prefix)
	}
	ok, err := path.Match(pattern, branch)
	return err == nil && ok
}
