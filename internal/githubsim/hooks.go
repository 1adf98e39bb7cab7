package githubsim

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HookAttempt is one attempt of an App's webhook delivery, as GitHub
// records it in the App's delivery log.
type HookAttempt struct {
	ID           int64
	GUID         string
	DeliveredAt  time.Time
	Redelivery   bool
	Duration     time.Duration
	Status       string
	StatusCode   int
	Event        string
	Action       string
	Installation int64
	body         []byte
}

// appHook is an App's webhook: where GitHub sends its events, the secret
// that signs them and the log of every attempt (oldest first).
type appHook struct {
	url      string
	secret   []byte
	client   *http.Client
	attempts []*HookAttempt
}

// SetAppWebhook configures App appID's webhook: events sent with
// DeliverAppEvent go to url, signed with secret, as GitHub sends them.
func (s *Server) SetAppWebhook(appID int64, url string, secret []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.apps[appID]; ok {
		// GitHub gives a delivery 10 s to be answered.
		a.hook = &appHook{url: url, secret: secret, client: &http.Client{Timeout: 10 * time.Second}}
	}
}

// DeliverAppEvent sends an event to App appID's webhook as GitHub does
// (X-GitHub-Event, a fresh X-GitHub-Delivery guid, X-Hub-Signature-256)
// and records the attempt in the App's delivery log. GitHub does not
// retry a failed delivery: only a redelivery through the API sends it
// again.
func (s *Server) DeliverAppEvent(appID int64, event, action string, installation int64, body []byte) (HookAttempt, error) {
	guid := newGUID()
	return s.sendHook(appID, &HookAttempt{GUID: guid, Event: event, Action: action, Installation: installation, body: body})
}

// HookAttempts returns App appID's delivery log, oldest first.
func (s *Server) HookAttempts(appID int64) []HookAttempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok || a.hook == nil {
		return nil
	}
	out := make([]HookAttempt, len(a.hook.attempts))
	for i, at := range a.hook.attempts {
		out[i] = *at
	}
	return out
}

// sendHook posts attempt to the App's webhook, outside the lock (the
// receiver may call the simulator meanwhile), then logs it.
func (s *Server) sendHook(appID int64, at *HookAttempt) (HookAttempt, error) {
	s.mu.Lock()
	a, ok := s.apps[appID]
	if !ok || a.hook == nil {
		s.mu.Unlock()
		return HookAttempt{}, fmt.Errorf("app %d has no webhook", appID)
	}
	hook := a.hook
	s.mu.Unlock()

	mac := hmac.New(sha256.New, hook.secret)
	mac.Write(at.body)
	req, err := http.NewRequest(http.MethodPost, hook.url, bytes.NewReader(at.body))
	if err != nil {
		return HookAttempt{}, fmt.Errorf("webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/githubsim")
	req.Header.Set("X-GitHub-Event", at.Event)
	req.Header.Set("X-GitHub-Delivery", at.GUID)
	req.Header.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	req.Header.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(appID, 10))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	start := time.Now()
	resp, err := hook.client.Do(req)
	at.Duration = time.Since(start)
	switch {
	case err != nil:
		at.Status = "failed to connect to host"
	default:
		_ = resp.Body.Close()
		at.StatusCode = resp.StatusCode
		at.Status = "OK"
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			at.Status = fmt.Sprintf("Invalid HTTP Response: %d", resp.StatusCode)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at.ID = s.id()
	at.DeliveredAt = s.now()
	hook.attempts = append(hook.attempts, at)
	return *at, nil
}

func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// handleListHookDeliveries serves GET /app/hook/deliveries: the App's
// attempts, newest first, paginated by cursor as GitHub does (the Link
// header's next URL carries the cursor of the next page).
func (s *Server) handleListHookDeliveries(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.appFor(r)
	if err != nil {
		writeMessage(w, http.StatusUnauthorized, err.Error())
		return
	}
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	per = min(per, 100)
	var log []*HookAttempt
	if a.hook != nil {
		log = a.hook.attempts
	}
	// The cursor names the newest attempt of the page.
	start := len(log) - 1
	if c := q.Get("cursor"); c != "" {
		id, err := strconv.ParseInt(strings.TrimPrefix(c, "v1_"), 10, 64)
		if err != nil {
			writeMessage(w, http.StatusBadRequest, "invalid cursor")
			return
		}
		for start >= 0 && log[start].ID > id {
			start--
		}
	}
	out := []map[string]any{}
	status := q.Get("status")
	i := start
	for ; i >= 0 && len(out) < per; i-- {
		at := log[i]
		failed := at.StatusCode < 200 || at.StatusCode > 399
		if status == "success" && failed || status == "failure" && !failed {
			continue
		}
		out = append(out, hookAttemptJSON(at))
	}
	if i >= 0 {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("per_page", strconv.Itoa(per))
		v.Set("cursor", "v1_"+strconv.FormatInt(log[i].ID, 10))
		u := url.URL{Scheme: "http", Host: r.Host, Path: originalPath(r), RawQuery: v.Encode()}
		w.Header().Set("Link", fmt.Sprintf("<%s>; rel=%q", u.String(), "next"))
	}
	writeJSON(w, http.StatusOK, out)
}

func hookAttemptJSON(at *HookAttempt) map[string]any {
	m := map[string]any{
		"id": at.ID, "guid": at.GUID, "delivered_at": ts(at.DeliveredAt), "redelivery": at.Redelivery,
		"duration": at.Duration.Seconds(), "status": at.Status, "status_code": at.StatusCode, "event": at.Event,
		"action": nil, "installation_id": nil, "repository_id": nil,
	}
	if at.Action != "" {
		m["action"] = at.Action
	}
	if at.Installation != 0 {
		m["installation_id"] = at.Installation
	}
	return m
}

// handleRedeliverHookDelivery serves POST
// /app/hook/deliveries/{delivery_id}/attempts: the attempt's event is
// sent again under the same guid, as a new attempt marked redelivery.
// GitHub answers 202 and sends it shortly; the simulator sends it before
// answering, so that tests see its result.
func (s *Server) handleRedeliverHookDelivery(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a, err := s.appFor(r)
	if err != nil {
		s.mu.Unlock()
		writeMessage(w, http.StatusUnauthorized, err.Error())
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("delivery_id"), 10, 64)
	var orig *HookAttempt
	if a.hook != nil {
		for _, at := range a.hook.attempts {
			if at.ID == id {
				orig = at
			}
		}
	}
	appID := a.id
	s.mu.Unlock()
	if orig == nil {
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	again := &HookAttempt{GUID: orig.GUID, Redelivery: true, Event: orig.Event, Action: orig.Action, Installation: orig.Installation, body: orig.body}
	if _, err := s.sendHook(appID, again); err != nil {
		writeMessage(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{})
}
