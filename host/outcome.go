package host

import (
	"errors"
	"fmt"
	"strings"
)

// The words a ClientReport's Exit takes: how a client's run ended.
const (
	exitOK           = "ok"
	exitFailed       = "failed"
	exitRefused      = "refused"
	exitDisconnected = "disconnected"
	exitUnseated     = "unseated"
	exitScriptErrors = "script_errors"
)

// failuresNamed is how many failed clients Report.Err names in its one
// line; the report lists them all.
const failuresNamed = 3

// settle sets r.Exit from how the run ended. err is the error the run
// returned: the client could not run, or stopped; it makes the state and
// the exit "failed" with err as the last error. Otherwise the session's
// state decides (refused, disconnected, still joining), then the script
// errors. A client seated or offline when its run ended, with no script
// errors, is "ok", however it was stopped. settle may run again on a
// settled report and gives the same answer.
func (r *ClientReport) settle(err error) {
	if r.Events == nil {
		r.Events = map[string]int{}
	}
	switch {
	case err != nil:
		r.State, r.Exit, r.LastError = exitFailed, exitFailed, err.Error()
	case r.State == exitFailed:
		r.Exit = exitFailed
	case r.State == "refused":
		r.Exit = exitRefused
	case r.State == "disconnected":
		r.Exit = exitDisconnected
	case r.State == "joining":
		r.Exit = exitUnseated
	case r.Errors > 0:
		r.Exit = exitScriptErrors
	default:
		r.Exit = exitOK
	}
}

// why says in a phrase why the client failed, for Report.Err.
func (r *ClientReport) why() string {
	switch r.Exit {
	case exitUnseated:
		return "not seated: the server did not answer before the run ended"
	case exitScriptErrors:
		first := ""
		if len(r.ErrorMessages) > 0 {
			first = ", the first: " + r.ErrorMessages[0]
		}
		if r.Errors == 1 {
			return "a script error" + strings.TrimPrefix(first, ", the first")
		}
		return fmt.Sprintf("%d script errors%s", r.Errors, first)
	}
	if r.LastError == "" {
		return r.Exit
	}
	return r.Exit + ": " + r.LastError
}

// NewReport returns the report of clients' runs, with Failed filled in
// from their Exit.
func NewReport(clients ...ClientReport) Report {
	r := Report{Clients: clients, Failed: []int{}}
	for i, c := range clients {
		if c.Exit != exitOK {
			r.Failed = append(r.Failed, i+1)
		}
	}
	return r
}

// Err returns nil when no client failed and otherwise one line saying
// which did and why, the first few by number: what a program prints as it
// exits non-zero.
func (r Report) Err() error {
	if len(r.Failed) == 0 {
		return nil
	}
	if len(r.Clients) == 1 {
		return fmt.Errorf("host: %s", r.Clients[0].why())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "host: %d of %d clients failed", len(r.Failed), len(r.Clients))
	for k, n := range r.Failed {
		if k == failuresNamed {
			fmt.Fprintf(&b, "; %d more in the report", len(r.Failed)-k)
			break
		}
		fmt.Fprintf(&b, "; client %d: %s", n, r.Clients[n-1].why())
	}
	return errors.New(b.String())
}
