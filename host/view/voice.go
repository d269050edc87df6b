package view

import "vkm/internal/entity"

// The voice: whose voice each of the player's voice slots carries, as the
// server last said (netmsg.Voice), goes to the page whenever it changes:
//
//	{"t":"voice","nearby":true,"speak":true,"range":20,
//	 "slots":[{"player":2,"name":"ada","entity":16777217,"gain":1}, ...]}
//
// slots has one entry per slot (VoiceSlots of them), player 0 for an empty
// one; entity is packed as frames pack it. vkm-voice.js plays the slots.

// VoiceSlot is one of the player's voice slots.
type VoiceSlot struct {
	Player uint16
	Name   string
	Entity entity.ID
	Gain   float64
}

// Voice is what the page is told of the player's voice.
type Voice struct {
	// Nearby places the voices at their entities, fading to silence at
	// Range metres.
	Nearby bool
	Range  float64
	// Speak says whether the server forwards this player's voice.
	Speak bool
	Slots []VoiceSlot
}

type voiceSlotMsg struct {
	Player uint16  `json:"player"`
	Name   string  `json:"name"`
	Entity uint64  `json:"entity"`
	Gain   float64 `json:"gain"`
}

type voiceMsg struct {
	T      string         `json:"t"` // "voice"
	Nearby bool           `json:"nearby"`
	Speak  bool           `json:"speak"`
	Range  float64        `json:"range"`
	Slots  []voiceSlotMsg `json:"slots"`
}

// encodeVoice returns the voice message for v.
func encodeVoice(v Voice) []byte {
	m := voiceMsg{T: "voice", Nearby: v.Nearby, Speak: v.Speak, Range: v.Range, Slots: make([]voiceSlotMsg, len(v.Slots))}
	for i, s := range v.Slots {
		m.Slots[i] = voiceSlotMsg{Player: s.Player, Name: s.Name, Entity: packID(s.Entity), Gain: s.Gain}
	}
	return marshal(&m)
}

// SetVoice hands the page the player's voice slots when they differ from
// the last.
func (s *Sink) SetVoice(v Voice) { s.setOnChange(&s.voice, encodeVoice(v)) }
