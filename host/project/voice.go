package project

import (
	"math"
	"slices"
	"strings"
)

// Voice is how the players talk, read from project.toml's [voice] table:
// who hears whom (the server decides; a behavior may decide per pair with
// net.voice_hears) and the button that holds the microphone open. The
// zero Voice is off.
type Voice struct {
	// Mode is "" (off), "nearby" (a listener within Range of the
	// speaker's entity), "team" (the players whose Team field matches)
	// or "everyone".
	Mode string
	// Range is how far a nearby voice carries, in metres; the page fades
	// it to silence at that distance.
	Range float64
	// Team is the component field naming a player's team, "Type.field";
	// required with mode "team".
	Team string
	// PushToTalk is the name of the project button that opens the
	// microphone while held; "" leaves the choice to the page (voice
	// activated, or an open microphone).
	PushToTalk string
}

// On reports whether the project has voice.
func (v Voice) On() bool { return v.Mode != "" }

// VoiceModes are the voice's modes.
var VoiceModes = []string{"nearby", "team", "everyone"}

// DefaultVoiceRange is a nearby voice's range when the project gives none.
const DefaultVoiceRange = 20

// readVoice reads [voice] into p.
func readVoice(root *tomlTable, p *Project) {
	p.Voice = Voice{}
	t, ok := root.table("voice")
	if !ok {
		return
	}
	t.only()
	v := &p.Voice
	m, ok := t.str("mode")
	if !ok {
		t.fail("mode", "[voice] needs a mode: \"nearby\", \"team\" or \"everyone\"")
		return
	}
	if !slices.Contains(VoiceModes, m) {
		t.fail("mode", "%q is not a voice mode: use \"nearby\" (within range), \"team\" (the same team) or \"everyone\"", m)
	}
	v.Mode = m
	v.Range = DefaultVoiceRange
	if r, ok := t.number("range"); ok {
		if !(r > 0 && r <= MaxViewWidth) || math.IsNaN(r) {
			t.fail("range", "%v is not a range from above 0 to %d metres", r, MaxViewWidth)
		}
		v.Range = r
	}
	if team, ok := t.str("team"); ok {
		typ, field, found := strings.Cut(team, ".")
		if !found || typ == "" || field == "" {
			t.fail("team", "%q is not a component field: write \"Type.field\", e.g. \"Team.id\"", team)
		}
		v.Team = team
	}
	if m == "team" && v.Team == "" {
		t.fail("mode", "a team voice needs team = \"Type.field\", the component field naming each player's team")
	}
	if b, ok := t.str("pushToTalk"); ok {
		found := false
		for _, x := range p.Buttons {
			found = found || x.Name == b
		}
		if !found {
			t.fail("pushToTalk", "%q is not one of the project's buttons ([[button]] name)", b)
		}
		v.PushToTalk = b
	}
}
