package netmsg

import (
	"bytes"
	"testing"

	"vkm/internal/entity"
)

func sampleVoice() Voice {
	v := Voice{Nearby: true, CanSpeak: true, Range: 12.5}
	v.Slots[0] = VoiceSlot{Player: 3, Entity: entity.ID{Slot: 7, Gen: 2}, Gain: 1}
	v.Slots[5] = VoiceSlot{Player: 9, Entity: entity.ID{Slot: 1, Gen: 1}, Gain: 0.25}
	return v
}

// FuzzVoice feeds the voice parser anything: it must not panic, and what
// it accepts is what Append writes for it.
func FuzzVoice(f *testing.F) {
	f.Add(sampleVoice().Append(nil))
	f.Add(Voice{}.Append(nil))
	f.Add([]byte{byte(KindVoice), 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVoice(b)
		mustParseError(t, err)
		if err == nil && !bytes.Equal(v.Append(nil), b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", v, b, v.Append(nil))
		}
	})
}

func TestVoiceRoundTrip(t *testing.T) {
	v := sampleVoice()
	got, err := ParseVoice(v.Append(nil))
	if err != nil || got != v {
		t.Fatalf("%+v came back %+v, %v", v, got, err)
	}
	loud := Voice{}
	loud.Slots[1] = VoiceSlot{Player: 1, Gain: 9}
	if got, _ := ParseVoice(loud.Append(nil)); got.Slots[1].Gain != MaxVoiceGain {
		t.Errorf("a gain of 9 came back %v, want it clamped to %v", got.Slots[1].Gain, MaxVoiceGain)
	}
	bad := v.Append(nil)
	bad[1] |= 0x80
	if _, err := ParseVoice(bad); err == nil {
		t.Error("unknown flags parsed")
	}
	bad = v.Append(nil)
	bad[4+11+10] = 5 // slot 1 names no player but has a gain
	if _, err := ParseVoice(bad); err == nil {
		t.Error("an empty slot with a gain parsed")
	}
	if _, err := ParseVoice(v.Append(nil)[:20]); err == nil {
		t.Error("a message cut short parsed")
	}
}
