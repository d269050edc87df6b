//go:build js

package browser

import (
	"log/slog"
	"time"

	"vkm/host/netio"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/transport"
)

// VoicePlanner is nothing in a browser: the voice is the server's.
type VoicePlanner struct{}

// NewVoicePlanner returns nil: a browser serves no voice.
func NewVoicePlanner(project.Voice, *slog.Logger) *VoicePlanner { return nil }

// Update does nothing.
func (*VoicePlanner) Update(*session.Server, netio.Socket, time.Time, transport.Time) {}
