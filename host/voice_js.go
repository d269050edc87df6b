//go:build js

package host

import (
	"time"

	"vkm/host/project"
)

// voicePlanner is nothing in a browser: the voice is the server's.
type voicePlanner struct{}

func newVoicePlanner(project.Voice) *voicePlanner { return nil }

func (*voicePlanner) update(*server, time.Time) {}
