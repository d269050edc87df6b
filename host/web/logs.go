package web

import (
	"fmt"
	"log/slog"

	"github.com/pion/logging"
)

// pionLogs hands the WebRTC stack's warnings and errors to the gateway's
// logger at debug level: they are about single peers' connections (a
// check that failed, a browser that went away), which the gateway's own
// lines already say in a sentence. Its chatter below that is dropped.
type pionLogs struct{ log *slog.Logger }

func (f pionLogs) NewLogger(scope string) logging.LeveledLogger {
	return pionLog{f.log.With("pion", scope)}
}

type pionLog struct{ log *slog.Logger }

func (pionLog) Trace(string)                {}
func (pionLog) Tracef(string, ...any)       {}
func (pionLog) Debug(string)                {}
func (pionLog) Debugf(string, ...any)       {}
func (pionLog) Info(string)                 {}
func (pionLog) Infof(string, ...any)        {}
func (l pionLog) Warn(m string)             { l.log.Debug(m) }
func (l pionLog) Warnf(f string, a ...any)  { l.log.Debug(fmt.Sprintf(f, a...)) }
func (l pionLog) Error(m string)            { l.log.Debug(m) }
func (l pionLog) Errorf(f string, a ...any) { l.log.Debug(fmt.Sprintf(f, a...)) }
