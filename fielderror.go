package neardup

import (
	"strconv"
)

// FieldError is an Options or Params field outside its documented range,
// or a field that contradicts another one. Resolve, the Parse functions
// and the constructors that resolve return it, so that a front end can say
// which of its own inputs (a flag, a request member) is wrong: Field names
// the field, not a flag. It wraps ErrOptions (errors.Is(err, ErrOptions)
// holds) and, when set, Err.
type FieldError struct {
	// Field is the field's path in Options, as written in Go: "Threshold",
	// "Shingle.N", "LSH" (bands and rows together), "Weight".
	Field string
	// Value is the refused value as the message shows it: numbers as %v
	// formats them, strings quoted; "" when no one value is at fault (an
	// LSH choice that fails).
	Value string
	// Reason says what the field accepts or which rule the value breaks,
	// e.g. "want a number in (0, 1]".
	Reason string
	// Err is the underlying error, if any (lsh.ErrNoParams); nil otherwise.
	Err error
}

// Error returns "invalid options: Field Value: Reason".
func (e *FieldError) Error() string {
	s := ErrOptions.Error() + ": " + e.Field
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + ": " + e.Reason
}

// Unwrap returns ErrOptions and Err.
func (e *FieldError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrOptions}
	}
	return []error{ErrOptions, e.Err}
}

// fieldError returns a *FieldError for field with value v (formatted as
// FieldError.Value says) and reason.
func fieldError(field string, v any, reason string) *FieldError {
	var s string
	switch v := v.(type) {
	case string:
		s = strconv.Quote(v)
	case float64:
		s = strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		s = strconv.Itoa(v)
	case uint8:
		s = strconv.Itoa(int(v))
	default:
		panic("neardup: fieldError of an unexpected type")
	}
	return &FieldError{Field: field, Value: s, Reason: reason}
}
