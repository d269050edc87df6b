package browser

import (
	"vkm/host/project"
	"vkm/host/view"
)

// voicePage is a page that plays the voice: the browser client's own
// (view.Sink), which shares its tab with the peer connection the voice
// comes on. A native client's view page (view.Server) has none.
type voicePage interface {
	SetVoice(view.Voice)
}

// updateVoice hands the page the server's last word on the player's
// voice slots, with the speakers' names, when the server has said
// something new.
func (v *Viewer) updateVoice() {
	c := v.c
	if c == nil {
		return
	}
	vp, ok := v.srv.(voicePage)
	if !ok {
		return
	}
	msg, n := c.Voice()
	if n == 0 || n == v.voiceSeen {
		return
	}
	v.voiceSeen = n
	names := map[uint16]string{}
	for _, p := range v.g.Players() {
		names[p.Number] = p.Name
	}
	out := view.Voice{Nearby: msg.Nearby, Range: msg.Range, Speak: msg.CanSpeak, Slots: make([]view.VoiceSlot, len(msg.Slots))}
	for i, s := range msg.Slots {
		out.Slots[i] = view.VoiceSlot{Player: s.Player, Name: names[s.Player], Entity: s.Entity, Gain: s.Gain}
	}
	vp.SetVoice(out)
}

// voiceSetting is the voice as the page's web.json gives it: the page
// offers audio lines only when it is there.
type voiceSetting struct {
	Mode  string  `json:"mode"`
	Range float64 `json:"range"`
	// PushToTalk is the project button that opens the microphone, and
	// Keys its keys ("" and none: the page's own choice, V to talk).
	PushToTalk string   `json:"pushToTalk"`
	Keys       []string `json:"keys"`
}

// voiceSettings returns p's voice for web.json, nil without [voice].
func voiceSettings(p *project.Project) *voiceSetting {
	if p == nil || !p.Voice.On() {
		return nil
	}
	v := &voiceSetting{Mode: p.Voice.Mode, Range: p.Voice.Range, PushToTalk: p.Voice.PushToTalk, Keys: []string{}}
	for _, b := range p.Buttons {
		if b.Name == p.Voice.PushToTalk {
			v.Keys = append(v.Keys, b.Keys...)
		}
	}
	return v
}
