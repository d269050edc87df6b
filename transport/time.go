package transport

import "time"

// Time is a point on the caller's monotonic clock, in nanoseconds since a
// start the caller chooses (process start, or zero in a test). Only
// differences between two Times mean anything. The cores take it as an
// argument instead of reading a clock, so tests drive them with a synthetic
// one; it is an integer rather than a time.Time so it is cheap to store in
// per-packet rings and cannot be disturbed by wall-clock steps. The zero
// value is the start of the caller's clock; Time is a plain value, safe to
// copy and share.
type Time int64

// Add returns t moved forward by d (backward when d is negative).
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Before reports whether t is earlier than u.
func (t Time) Before(u Time) bool { return t < u }
