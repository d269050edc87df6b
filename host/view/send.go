package view

import (
	"math"
	"strconv"
)

// The page's own code sends the project's messages and hears the
// server's (docs/project.md, "Your own renderer"): vkm.send(name, fields)
// comes as
//
//	{"t":"send","name":"buy_boost","fields":{"coins":3,"now":true}}
//
// and is handed to Config.OnSend (SinkConfig.OnSend), which sends it as the
// client's scripts' net.send does, under the same bounds; the messages the
// server tells this player come in each frame's "msgs", each
// [seq, name, 0, {fields}] as effects are, for the page's vkm.onMessage
// callbacks.

// Bounds on a send message from the page, past which it is ignored whole:
// a message's name and fields are a schema's, which are short and few.
const (
	MaxSendName   = 64
	MaxSendFields = 32
)

// PageSend is a project message the page's code sent: its name and its
// fields by name, a bool as 0 or 1.
type PageSend struct {
	Name   string
	Fields map[string]float64
}

// parseSend validates a send message: a name of 1 to MaxSendName bytes
// and at most MaxSendFields fields, each a finite number or a bool. ok is
// false for anything else.
func parseSend(raw *rawMessage) (PageSend, bool) {
	if raw.Name == nil || *raw.Name == "" || len(*raw.Name) > MaxSendName || len(raw.Fields) > MaxSendFields {
		return PageSend{}, false
	}
	p := PageSend{Name: *raw.Name, Fields: make(map[string]float64, len(raw.Fields))}
	for k, v := range raw.Fields {
		if k == "" || len(k) > MaxSendName {
			return PageSend{}, false
		}
		var f float64
		switch {
		case string(v) == "true":
			f = 1
		case string(v) == "false":
			f = 0
		case string(v) == "null":
			return PageSend{}, false
		case len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
			var err error
			if f, err = strconv.ParseFloat(string(v), 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return PageSend{}, false
			}
		default: // a string, an object or an array
			return PageSend{}, false
		}
		p.Fields[k] = f
	}
	return p, true
}
