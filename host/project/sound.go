package project

import (
	"fmt"
	"path"
	"strings"
)

// Sound is one of project.toml's [[sound]] tables: a file the reference
// client's page plays when the game emits an event of that name, placed
// where the event happened (its x and y fields, or the emitting entity).
type Sound struct {
	// Event is the presentation event's name, as a behavior emits it;
	// "" for a sound that Change plays.
	Event string
	// Change is the component field whose change on an entity plays the
	// sound there, instead of an event; zero for an event's sound.
	Change Ref
	// File is the OGG or WAV file's slash-separated path in the project,
	// cleaned.
	File string
	// Volume is its loudness from 0 to 1 (1 when not set).
	Volume float64
	// Range is how far from the middle of the view, in metres, it fades
	// to silence (DefaultSoundRange when not set); 0 plays it everywhere
	// alike, unplaced.
	Range float64
	// Line is where project.toml defines it, for messages.
	Line int
}

// DefaultSoundRange is a sound's range when project.toml sets none: a
// little past the edge of a default view.
const DefaultSoundRange = 40

// readSounds reads the [[sound]] tables into p.
func readSounds(root *tomlTable, p *Project) {
	sounds, _ := root.tables("sound", "[[sound]]")
	seen := map[string]int{}
	for _, t := range sounds {
		t.only()
		s := Sound{Volume: 1, Range: DefaultSoundRange, Line: t.line}
		switch {
		case t.has("event") && t.has("change"):
			t.fail("change", "a [[sound]] plays on an event or on a field's change, not both")
			continue
		case t.has("change"):
			if c, ok := t.str("change"); ok {
				r, err := parseRef(strings.Trim(c, "{}"))
				if err != nil || r.Name {
					t.fail("change", "%q is not a component field: write \"Type.field\", e.g. \"Score.coins\"", c)
				} else if seen["change:"+r.String()] > 0 {
					t.fail("change", "%q already has a sound (at line %d)", r.String(), seen["change:"+r.String()])
				}
				seen["change:"+r.String()] = max(t.line, 1)
				s.Change = r
			}
		case !t.has("event"):
			t.fail("", "a [[sound]] needs event, the name of the event that plays it (e.g. event = \"pickup\"), or change, a component field (e.g. change = \"Score.coins\")")
			continue
		}
		if ev, ok := t.str("event"); ok && t.has("event") {
			switch {
			case strings.TrimSpace(ev) == "":
				t.fail("event", "is empty; name the event a behavior emits (e.g. \"pickup\")")
			case seen[ev] > 0:
				t.fail("event", "%q already has a sound (at line %d)", ev, seen[ev])
			}
			seen[ev] = max(t.line, 1)
			s.Event = ev
		}
		if !t.has("file") {
			t.fail("file", "a [[sound]] needs file, an OGG or WAV file in the project folder (e.g. \"sounds/pickup.ogg\")")
			continue
		}
		if f, ok := t.str("file"); ok {
			if reason := checkProjectPath(f); reason != "" {
				t.fail("file", "%q %s", f, reason)
			} else if ext := strings.ToLower(path.Ext(f)); ext != ".ogg" && ext != ".wav" {
				t.fail("file", "%q is not an OGG or WAV file (the page plays .ogg and .wav)", f)
			}
			s.File = path.Clean(f)
		}
		if v, ok := t.number("volume"); ok {
			if !(v >= 0 && v <= 1) {
				t.fail("volume", "%v is not a volume from 0 to 1", v)
			}
			s.Volume = v
		}
		if r, ok := t.number("range"); ok {
			if !(r >= 0 && r <= MaxViewWidth) {
				t.fail("range", "%v is not a distance from 0 to %d metres", r, MaxViewWidth)
			}
			s.Range = r
		}
		p.Sounds = append(p.Sounds, s)
	}
}

// checkSounds says which of p's sound files is not in its folders, or
// returns nil.
func (p *Project) checkSounds(stat func(name string) error) error {
	for _, s := range p.Sounds {
		if err := stat(s.File); err != nil {
			return &ConfigError{File: p.File, Line: s.Line, Key: "sound.file", Err: err,
				Reason: fmt.Sprintf("%s does not exist in the project", s.File)}
		}
	}
	return nil
}
