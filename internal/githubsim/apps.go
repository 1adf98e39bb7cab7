package githubsim

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

// app is a registered GitHub App: requests signed with its key (an RS256
// JWT whose issuer is the App id) may read GET /app and mint installation
// tokens.
type app struct {
	id            int64
	slug          string
	bot           string
	key           *rsa.PublicKey
	installations map[int64]bool
	minted        int
	// hook is the App's webhook and delivery log (hooks.go), nil until
	// SetAppWebhook.
	hook *appHook
}

// AddApp registers a GitHub App with its public key. Installation tokens
// it mints act as bot (e.g. "cogworks[bot]").
func (s *Server) AddApp(id int64, slug, bot string, key *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.apps == nil {
		s.apps = map[int64]*app{}
	}
	s.apps[id] = &app{id: id, slug: slug, bot: bot, key: key, installations: map[int64]bool{}}
	s.userLocked(bot)
}

// AddInstallation installs App appID (registered with AddApp) as
// installation id.
func (s *Server) AddInstallation(appID, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.apps[appID]; ok {
		a.installations[id] = true
	}
}

// TokensMinted reports how many installation tokens App appID obtained.
func (s *Server) TokensMinted(appID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.apps[appID]; ok {
		return a.minted
	}
	return 0
}

// appFor verifies the request's App JWT and returns the App. Callers hold s.mu.
func (s *Server) appFor(r *http.Request) (*app, error) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, fmt.Errorf("a JSON web token is required")
	}
	var found *app
	_, err := jwt.ParseWithClaims(strings.TrimSpace(raw), &jwt.RegisteredClaims{}, func(t *jwt.Token) (any, error) {
		if t.Method != jwt.SigningMethodRS256 {
			return nil, fmt.Errorf("unexpected signing method %v", t.Header["alg"])
		}
		claims := t.Claims.(*jwt.RegisteredClaims)
		id, err := strconv.ParseInt(claims.Issuer, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("issuer %q is not an App id", claims.Issuer)
		}
		a, ok := s.apps[id]
		if !ok {
			return nil, fmt.Errorf("unknown App %d", id)
		}
		found = a
		return a.key, nil
	})
	if err != nil {
		return nil, fmt.Errorf("a JSON web token could not be decoded: %w", err)
	}
	return found, nil
}

func (s *Server) handleGetApp(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.appFor(r)
	if err != nil {
		writeMessage(w, http.StatusUnauthorized, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": a.id, "slug": a.slug, "name": a.slug})
}

func (s *Server) handleInstallationToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, err := strconv.ParseInt(r.PathValue("id"), 10, 64); err == nil {
		if inst, ok := s.installations[id]; ok {
			s.createInstallationToken(w, r, id, inst)
			return
		}
	}
	a, err := s.appFor(r)
	if err != nil {
		writeMessage(w, http.StatusUnauthorized, err.Error())
		return
	}
	inst, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || !a.installations[inst] {
		writeNotFound(w)
		return
	}
	a.minted++
	token := fmt.Sprintf("ghs_sim_%d_%d_%d", a.id, inst, a.minted)
	s.tokens[token] = a.bot
	writeJSON(w, http.StatusCreated, map[string]any{
		"token": token, "expires_at": s.now().Add(time.Hour).UTC().Format(time.RFC3339),
	})
}
