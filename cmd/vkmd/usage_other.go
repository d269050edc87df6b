//go:build !unix

package main

import "time"

// usage reports nothing where getrusage does not exist: the report's
// process figures stay 0.
func usage() (cpu time.Duration, maxRSS int64, ok bool) { return 0, 0, false }
