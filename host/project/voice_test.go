package project

import "testing"

func TestVoiceIsReadFromItsTable(t *testing.T) {
	const base = "players = 4\nentryScene = \"s.toml\"\nentryScript = \"m.lua\"\n[[button]]\nname = \"talk\"\nkeys = [\"KeyV\"]\n" // lines 1-6
	p, err := ParseProject("project.toml", []byte(base))
	if err != nil || p.Voice.On() {
		t.Fatalf("without [voice]: %+v, %v; want it off", p.Voice, err)
	}
	p, err = ParseProject("project.toml", []byte(base+"[voice]\nmode = \"team\"\nteam = \"Team.id\"\npushToTalk = \"talk\"\n"))
	if err != nil || p.Voice != (Voice{Mode: "team", Range: DefaultVoiceRange, Team: "Team.id", PushToTalk: "talk"}) {
		t.Fatalf("a team voice: %+v, %v", p.Voice, err)
	}
	p, err = ParseProject("project.toml", []byte(base+"[voice]\nmode = \"nearby\"\nrange = 12.5\n"))
	if err != nil || p.Voice != (Voice{Mode: "nearby", Range: 12.5}) {
		t.Fatalf("a nearby voice: %+v, %v", p.Voice, err)
	}
	for _, tt := range []struct {
		name, src string
		line      int
		key, frag string
	}{
		{"no mode", "[voice]\nrange = 3\n", 7, "voice.mode", "needs a mode"},
		{"bad mode", "[voice]\nmode = \"loud\"\n", 8, "voice.mode", `"loud" is not a voice mode`},
		{"team without field", "[voice]\nmode = \"team\"\n", 8, "voice.mode", "needs team"},
		{"bad team", "[voice]\nmode = \"team\"\nteam = \"Team\"\n", 9, "voice.team", "is not a component field"},
		{"bad range", "[voice]\nmode = \"nearby\"\nrange = -1\n", 9, "voice.range", "is not a range"},
		{"unknown button", "[voice]\nmode = \"everyone\"\npushToTalk = \"shout\"\n", 9, "voice.pushToTalk", "is not one of the project's buttons"},
		{"unknown key", "[voice]\nmode = \"everyone\"\nvolume = 1\n", 9, "voice.volume", "unknown key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProject("project.toml", []byte(base+tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			wantConfigError(t, err, "project.toml", tt.line, tt.key, tt.frag)
		})
	}
}
