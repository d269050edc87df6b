package netmsg

import (
	"encoding/binary"

	"vkm/internal/entity"
)

// VoiceSlots is how many voices a listener hears at once: the receiving
// audio lines a browser's peer connection has (web.VoiceSlots).
const VoiceSlots = 8

// MaxVoiceGain bounds a slot's gain: a behavior's net.voice_hears may
// make a voice louder than it is, up to this.
const MaxVoiceGain = 2.55

// VoiceSlot is whose voice one of a listener's slots carries.
type VoiceSlot struct {
	// Player is the speaker's player number; 0 is an empty slot.
	Player uint16
	// Entity is the speaker's entity, where the page places the voice
	// (entity.None: unplaced).
	Entity entity.ID
	// Gain is how loud, 0..MaxVoiceGain, before the page's own volume
	// and, for a nearby voice, the distance.
	Gain float64
}

// Voice tells a listener whose voice each of its slots carries
// (KindVoice), server to client: the server stamps every voice, and no
// speaker's address or stream id reaches anyone. It is sent whenever a
// listener's slots change. On the wire:
//
//	kind u8 = 10, flags u8 (bit 0: nearby, the page places the voices;
//	bit 1: the listener itself may speak), range u16 (decimetres, how
//	far a nearby voice carries), then VoiceSlots times: player u16,
//	entity slot u32, entity generation u32, gain u8 (hundredths)
//
// every number little-endian.
type Voice struct {
	Nearby bool
	// CanSpeak says whether the server forwards this listener's own voice
	// (seated and not muted).
	CanSpeak bool
	// Range is how far a nearby voice carries, in metres (0.1 m steps,
	// at most 6553.5).
	Range float64
	Slots [VoiceSlots]VoiceSlot
}

// voiceSize is a voice message's length.
const voiceSize = 4 + VoiceSlots*11

// Append appends the voice message of v, its range and gains rounded to
// the wire's steps and clamped to its bounds.
func (v Voice) Append(b []byte) []byte {
	flags := byte(0)
	if v.Nearby {
		flags |= 1
	}
	if v.CanSpeak {
		flags |= 2
	}
	b = append(b, byte(KindVoice), flags)
	b = binary.LittleEndian.AppendUint16(b, uint16(clamp(v.Range*10, 0, 65535)))
	for _, s := range v.Slots {
		b = binary.LittleEndian.AppendUint16(b, s.Player)
		b = binary.LittleEndian.AppendUint32(b, s.Entity.Slot)
		b = binary.LittleEndian.AppendUint32(b, s.Entity.Gen)
		b = append(b, byte(clamp(s.Gain*100, 0, 255)))
	}
	return b
}

// clamp rounds f to the nearest integer within lo..hi; NaN is lo.
func clamp(f, lo, hi float64) float64 {
	if !(f >= lo) {
		return lo
	}
	if f > hi {
		return hi
	}
	return float64(int64(f + 0.5))
}

// ParseVoice reads a voice message. It refuses another kind, another
// length, unknown flags and a slot naming no player that is not all zero.
func ParseVoice(msg []byte) (Voice, error) {
	if KindOf(msg) != KindVoice || len(msg) != voiceSize {
		return Voice{}, fail(FormatVoice)
	}
	if msg[1]&^3 != 0 {
		return Voice{}, failf(FormatVoice, "unknown flags %#x", msg[1])
	}
	v := Voice{Nearby: msg[1]&1 != 0, CanSpeak: msg[1]&2 != 0, Range: float64(binary.LittleEndian.Uint16(msg[2:])) / 10}
	b := msg[4:]
	for i := range v.Slots {
		s := VoiceSlot{
			Player: binary.LittleEndian.Uint16(b),
			Entity: entity.ID{Slot: binary.LittleEndian.Uint32(b[2:]), Gen: binary.LittleEndian.Uint32(b[6:])},
			Gain:   float64(b[10]) / 100,
		}
		if s.Player == 0 && s != (VoiceSlot{}) {
			return Voice{}, failf(FormatVoice, "slot %d names no player but is not empty", i)
		}
		v.Slots[i] = s
		b = b[11:]
	}
	return v, nil
}
