package crawl

import (
	"errors"
	"fmt"
)

// Error codes. The API turns each into one HTTP status (api/errors.go); the
// rest of the service only picks a code.
const (
	EINVALID      = "invalid_request" // the caller sent something wrong (400)
	EUNAUTHORIZED = "unauthorized"    // missing or unknown API key (401)
	ENOTFOUND     = "not_found"       // no such resource for this caller (404)
	ECONFLICT     = "conflict"        // the resource is in the wrong state (409)
	EINTERNAL     = "internal"        // the service failed (500)
	EUNAVAILABLE  = "unavailable"     // a dependency is down (503)
	ERATELIMITED  = "rate_limited"    // the caller sent too many requests (429)
	EQUOTA        = "quota_exceeded"  // the caller's team is past its quota (402)
)

// FieldError names one bad field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error that carries a code, a message fit for the caller and,
// for invalid requests, the fields at fault.
type Error struct {
	Code    string
	Message string
	Details []FieldError
}

func (e *Error) Error() string {
	if len(e.Details) == 0 {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s (%d field errors)", e.Code, e.Message, len(e.Details))
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithField adds to e what is wrong with one field of the request, and
// returns e.
func (e *Error) WithField(field, message string) *Error {
	e.Details = append(e.Details, FieldError{Field: field, Message: message})
	return e
}

// ErrorCode returns the code of err, or EINTERNAL when err is not an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}
