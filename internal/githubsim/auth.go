package githubsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// installation is a simulated GitHub App installation.
type installation struct {
	appID       int64
	login       string
	permissions map[string]string
	issued      int
}

// AddTokenScopes records the OAuth scopes of a classic token added with
// AddToken. Like GitHub, every response to a request carrying it has an
// X-OAuth-Scopes header listing them (tokens without recorded scopes —
// fine-grained and installation tokens — get no such header).
func (s *Server) AddTokenScopes(token string, scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scopes == nil {
		s.scopes = map[string][]string{}
	}
	s.scopes[token] = append([]string{}, scopes...)
}

// AddInstallationWithPermissions registers App installation id of appID
// without registering the App's key (see AddApp for that). Installation
// tokens it issues (POST /app/installations/{id}/access_tokens, with a
// Bearer JWT whose iss claim is appID) act as login and report
// permissions (e.g. {"issues": "write", "contents": "read"}), as GitHub's
// token response does. The JWT's signature is not checked: the simulator
// holds no App keys.
func (s *Server) AddInstallationWithPermissions(appID, id int64, login string, permissions map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.installations == nil {
		s.installations = map[int64]*installation{}
	}
	perms := map[string]string{}
	for k, v := range permissions {
		perms[k] = v
	}
	s.installations[id] = &installation{appID: appID, login: login, permissions: perms}
	u := s.userLocked(login)
	u.bot = strings.HasSuffix(login, "[bot]")
}

// scopesHeader sets X-OAuth-Scopes for a request carrying a classic token.
func (s *Server) scopesHeader(h http.Header, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := bearerToken(r)
	if scopes, ok := s.scopes[tok]; ok && tok != "" {
		h.Set("X-OAuth-Scopes", strings.Join(scopes, ", "))
		h.Set("X-Accepted-OAuth-Scopes", "repo")
	}
}

func bearerToken(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	for _, p := range []string{"token ", "Token ", "Bearer ", "bearer "} {
		if tok, ok := strings.CutPrefix(auth, p); ok {
			return strings.TrimSpace(tok)
		}
	}
	return ""
}

// jwtIssuer reads the iss claim of an (unverified) JWT.
func jwtIssuer(tok string) (int64, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return 0, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return 0, false
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return 0, false
	}
	iss, err := strconv.ParseInt(strings.Trim(string(claims.Iss), `"`), 10, 64)
	return iss, err == nil
}

// createInstallationToken answers POST /app/installations/{id}/access_tokens
// for installations added with AddInstallationWithPermissions. Callers hold s.mu.
func (s *Server) createInstallationToken(w http.ResponseWriter, r *http.Request, id int64, inst *installation) {
	iss, ok := jwtIssuer(bearerToken(r))
	if !ok || iss != inst.appID {
		writeMessage(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	inst.issued++
	tok := fmt.Sprintf("ghs_sim%d_%d", id, inst.issued)
	s.tokens[tok] = inst.login
	s.grantLocked(tok, &grant{kind: TokenInstallation, perms: normPerms(inst.permissions)})
	writeJSON(w, http.StatusCreated, map[string]any{
		"token": tok, "expires_at": ts(s.now().Add(time.Hour)),
		"permissions": inst.permissions, "repository_selection": "all",
	})
}
