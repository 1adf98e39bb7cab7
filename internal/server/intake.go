package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// HandledEvents returns the X-GitHub-Event values CogWorks acts on.
// Anything else is refused before the body is read, and only these values
// ever become a metrics label.
func HandledEvents() []string {
	return []string{"ping", "installation", "issues", "issue_comment", "pull_request", "pull_request_review",
		"pull_request_review_comment", "check_run", "check_suite", "workflow_run", "push"}
}

func handledEvent(event string) bool { return slices.Contains(HandledEvents(), event) }

func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	if rej := s.precheck(r); rej != nil {
		s.reject(w, rej)
		return
	}
	body, rej := s.readSigned(w, r)
	if rej != nil {
		s.reject(w, rej)
		return
	}
	event := r.Header.Get("X-GitHub-Event")
	if err := checkShape(event, body); err != nil {
		s.reject(w, &rejection{http.StatusBadRequest, "bad_payload", err.Error()})
		return
	}
	delivery := r.Header.Get("X-GitHub-Delivery")
	bodyKey := sha256.Sum256(body)
	log := s.log.With("event", event, "delivery", delivery)
	switch event {
	case "ping":
		s.opts.Metrics.Delivery(event, "pong")
		writeText(w, http.StatusOK, "pong")
		return
	case "installation":
		var ev installationEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			s.reject(w, &rejection{http.StatusBadRequest, "bad_payload", "installation payload is not JSON"})
			return
		}
		if !s.firstSight(delivery, bodyKey) {
			log.Warn("replayed installation delivery dropped", "installation", ev.Installation.ID)
			s.reject(w, &rejection{http.StatusOK, "replay", "duplicate"})
			return
		}
		log.Info("installation event", "action", ev.Action, "installation", ev.Installation.ID, "account", ev.Installation.Account.Login)
		if s.opts.Installations != nil {
			s.opts.Installations.InstallationChanged(ev.Action, ev.Installation.ID)
		}
		s.opts.Metrics.Delivery(event, "handled")
		writeText(w, http.StatusOK, "ok")
		return
	}
	job, ignore, err := parseWork(event, body)
	if err != nil {
		s.reject(w, &rejection{http.StatusBadRequest, "bad_payload", err.Error()})
		return
	}
	if ignore != "" {
		s.opts.Metrics.Delivery(event, "ignored")
		writeText(w, http.StatusAccepted, "ignored: "+ignore)
		return
	}
	status, result := s.enqueue(delivery, event, bodyKey, job)
	log.Debug("delivery", "work_item", job.key(), "result", result)
	switch {
	case result == "replay":
		log.Warn("replayed body with a new delivery id dropped", "work_item", job.key())
		s.reject(w, &rejection{status, result, "duplicate"})
		return
	case status == http.StatusServiceUnavailable:
		log.Warn("delivery refused; recovery redelivers it", "work_item", job.key(), "installation", job.Installation, "reason", result)
		s.opts.Metrics.Rejected(result)
	default:
		s.opts.Metrics.Delivery(event, result)
	}
	writeText(w, status, result)
}

// reject counts and answers a refused delivery.
func (s *Server) reject(w http.ResponseWriter, rej *rejection) {
	s.opts.Metrics.Rejected(rej.reason)
	writeText(w, rej.status, rej.msg)
}

// firstSight reports whether neither the delivery id nor the body was
// accepted before (within the replay window), and remembers both.
func (s *Server) firstSight(delivery string, bodyKey [sha256.Size]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.accepted.seenID(delivery) || s.accepted.seenBody(bodyKey) {
		return false
	}
	s.accepted.remember(delivery, bodyKey)
	return true
}

// rejection is a delivery refused by the intake: the HTTP status, the
// reason (a fixed word, used as the metrics label) and the text answered.
type rejection struct {
	status int
	reason string
	msg    string
}

// precheck refuses what can be refused from the headers alone, so an
// unauthenticated client cannot make the server buffer anything: the
// event must be one CogWorks handles, the signature header well-formed,
// the content type JSON and the declared length within MaxBody.
func (s *Server) precheck(r *http.Request) *rejection {
	if !handledEvent(r.Header.Get("X-GitHub-Event")) {
		return &rejection{http.StatusBadRequest, "event", "X-GitHub-Event is not an event CogWorks handles (" + strings.Join(HandledEvents(), ", ") + ")"}
	}
	if !wellFormedSignature(r.Header.Get("X-Hub-Signature-256")) {
		return &rejection{http.StatusUnauthorized, "signature", "bad or missing X-Hub-Signature-256"}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return &rejection{http.StatusUnsupportedMediaType, "content_type", "Content-Type must be application/json (set the App's webhook content type to JSON)"}
	}
	if r.ContentLength > s.opts.MaxBody {
		return &rejection{http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("delivery of %d bytes is over the %d-byte limit", r.ContentLength, s.opts.MaxBody)}
	}
	return nil
}

// wellFormedSignature reports whether h looks like "sha256=<64 hex>".
func wellFormedSignature(h string) bool {
	hexSig, ok := strings.CutPrefix(h, "sha256=")
	if !ok || len(hexSig) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(hexSig)
	return err == nil
}

// readSigned reads the body within the in-flight byte budget and the
// MaxBody limit and returns it only when the signature matches the secret
// or the previous one.
func (s *Server) readSigned(w http.ResponseWriter, r *http.Request) ([]byte, *rejection) {
	reserve := r.ContentLength
	if reserve < 0 {
		reserve = s.opts.MaxBody // chunked: the most it may grow to
	}
	// Waiting a little lets a burst of real deliveries through while slow
	// uploads hold the budget; GitHub itself gives up after 10 s.
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.BodyWait)
	defer cancel()
	if err := s.inflight.Acquire(ctx, reserve); err != nil {
		w.Header().Set("Retry-After", "5")
		return nil, &rejection{http.StatusServiceUnavailable, "busy", "too many deliveries in flight"}
	}
	defer s.inflight.Release(reserve)
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		// Sized once to what was reserved: growing by doubling would hold
		// up to twice the body, outside the budget, until the next GC.
		buf.Grow(int(r.ContentLength))
	}
	body := &pacedReader{r: http.MaxBytesReader(w, r.Body, s.opts.MaxBody), rc: http.NewResponseController(w),
		start: time.Now(), grace: s.opts.BodyGrace, rate: s.opts.MinBodyRate}
	_, err := io.Copy(&buf, body)
	if err != nil {
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			return nil, &rejection{http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("delivery is over the %d-byte limit", s.opts.MaxBody)}
		case errors.As(err, &netErr) && netErr.Timeout():
			return nil, &rejection{http.StatusRequestTimeout, "slow", "the delivery's body arrived too slowly"}
		}
		return nil, &rejection{http.StatusBadRequest, "bad_payload", "cannot read the delivery"}
	}
	// go-github's check (constant time); precheck has already refused any
	// header but "sha256=<64 hex>", so its sha1 and sha512 forms never reach it.
	for _, secret := range [][]byte{s.opts.Secret, s.opts.PreviousSecret} {
		if len(secret) > 0 && gh.ValidateSignature(r.Header.Get("X-Hub-Signature-256"), buf.Bytes(), secret) == nil {
			return buf.Bytes(), nil
		}
	}
	return nil, &rejection{http.StatusUnauthorized, "signature", "bad or missing X-Hub-Signature-256"}
}

// pacedReader holds a body to a minimum rate: by grace plus one second
// per rate bytes read, the next byte must have arrived. A slow upload
// holds its in-flight reservation for seconds, not the whole ReadTimeout,
// so a few slow clients cannot starve GitHub's deliveries of the budget.
type pacedReader struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	n     int64
	grace time.Duration
	rate  int64 // bytes per second
}

func (p *pacedReader) Read(b []byte) (int, error) {
	// Not every ResponseWriter supports deadlines (httptest's does not);
	// ReadTimeout still bounds those.
	_ = p.rc.SetReadDeadline(p.start.Add(p.grace + time.Duration(p.n*int64(time.Second)/p.rate)))
	n, err := p.r.Read(b)
	p.n += int64(n)
	return n, err
}

// payloadShape records which top-level members a payload has; the
// X-GitHub-Event header is not covered by the signature, so the event it
// names must agree with the body.
type payloadShape struct {
	Action       string          `json:"action"`
	Zen          json.RawMessage `json:"zen"`
	HookID       json.RawMessage `json:"hook_id"`
	Installation json.RawMessage `json:"installation"`
	Issue        json.RawMessage `json:"issue"`
	Comment      json.RawMessage `json:"comment"`
	PullRequest  json.RawMessage `json:"pull_request"`
	Review       json.RawMessage `json:"review"`
	CheckRun     json.RawMessage `json:"check_run"`
	CheckSuite   json.RawMessage `json:"check_suite"`
	WorkflowRun  json.RawMessage `json:"workflow_run"`
	Ref          json.RawMessage `json:"ref"`
	Pusher       json.RawMessage `json:"pusher"`
}

// checkShape reports why body cannot be a delivery of event, or nil.
func checkShape(event string, body []byte) error {
	var p payloadShape
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("%s payload is not a JSON object: %w", event, err)
	}
	has := func(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
	var ok bool
	switch event {
	case "ping":
		ok = has(p.Zen) || has(p.HookID)
	case "installation":
		ok = has(p.Installation) && p.Action != "" && !has(p.Issue) && !has(p.PullRequest)
	case "issues":
		ok = has(p.Issue) && !has(p.Comment) && !has(p.PullRequest)
	case "issue_comment":
		ok = has(p.Issue) && has(p.Comment)
	case "pull_request":
		ok = has(p.PullRequest) && !has(p.Issue) && !has(p.Comment) && !has(p.Review)
	case "pull_request_review":
		ok = has(p.PullRequest) && has(p.Review) && !has(p.Issue)
	case "pull_request_review_comment":
		ok = has(p.PullRequest) && has(p.Comment) && !has(p.Issue)
	case "check_run":
		ok = has(p.CheckRun) && !has(p.Issue) && !has(p.Comment)
	case "check_suite":
		ok = has(p.CheckSuite) && !has(p.CheckRun) && !has(p.Issue) && !has(p.Comment)
	case "workflow_run":
		ok = has(p.WorkflowRun) && !has(p.Issue) && !has(p.Comment)
	case "push":
		ok = has(p.Ref) && has(p.Pusher) && !has(p.Issue) && !has(p.PullRequest)
	}
	if !ok {
		return fmt.Errorf("payload does not have the shape of a %s event", event)
	}
	return nil
}
