package extserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/cogworks/cogworks/domain"
)

// Error is a method's failure with the Extension API error code it is
// answered with.
type Error struct {
	Code    domain.ErrorCode
	Message string
	// Cause is a typed error an in-process caller may branch on (e.g.
	// *sandbox.UnavailableError); it does not travel on the wire.
	Cause error
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code domain.ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// httpStatus maps an error code to its HTTP status; codes not here are 500.
func httpStatus(code domain.ErrorCode) int {
	switch code {
	case domain.CodeInvalidRequest, domain.CodeAPIVersionMismatch:
		return http.StatusBadRequest
	case domain.CodeUnsupportedMethod, domain.CodeArtifactNotFound:
		return http.StatusNotFound
	case domain.CodeTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, requestID string, err error) {
	var me *Error
	if !errors.As(err, &me) {
		me = &Error{Code: domain.CodeInternalError, Message: err.Error()}
	}
	writeJSON(w, httpStatus(me.Code), domain.Response{
		RequestID: requestID,
		Status:    domain.StatusError,
		Error:     &domain.ErrorBody{Code: me.Code, Message: me.Message, Recoverable: me.Code.Recoverable()},
	})
}

func writeJSON(w http.ResponseWriter, status int, resp domain.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
