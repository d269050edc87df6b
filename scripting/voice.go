package scripting

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The voice's judge, a function of net the project may replace:
//
//	function net.voice_hears(listener, speaker)
//	  return 1 -- a gain, false to keep listener from hearing speaker
//	end
//
// The server asks it a few times a second for each pair of seated players,
// when the project has [voice]; nil leaves the pair to [voice]'s mode.
// The default returns nil.

// keyVoice keys math.random inside the voice judge.
const keyVoice uint64 = 0x766f6963 << 8

// MaxVoiceGain bounds the gain the judge may give.
const MaxVoiceGain = 2.55

// installVoice adds the default net.voice_hears.
func (r *Runtime) installVoice(net *lua.LTable) {
	r.voiceDefault = r.ls.NewFunction(func(L *lua.LState) int { return 0 })
	net.RawSetString("voice_hears", r.voiceDefault)
}

// HasVoiceJudge reports whether the project replaced net.voice_hears.
func (r *Runtime) HasVoiceJudge() bool {
	fn, ok := r.netTable.RawGetString("voice_hears").(*lua.LFunction)
	return ok && fn != r.voiceDefault
}

// VoiceHears asks net.voice_hears whether listener hears speaker: the
// gain (0..MaxVoiceGain, 0 for false), and whether it decided (false
// when the function is the default, or returned nil or nothing). A
// script error, or a value that is neither a number, a boolean nor nil,
// comes back as an error.
func (r *Runtime) VoiceHears(listener, speaker uint16) (float64, bool, error) {
	v := r.netTable.RawGetString("voice_hears")
	fn, ok := v.(*lua.LFunction)
	if !ok {
		if v == lua.LNil {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("scripting: net.voice_hears is a %s, want a function", v.Type())
	}
	if fn == r.voiceDefault {
		return 0, false, nil
	}
	if err := r.callSetup("net.voice_hears", keyVoice^uint64(listener)<<32^uint64(speaker)<<48, fn, 1, lua.LNumber(listener), lua.LNumber(speaker)); err != nil {
		return 0, false, err
	}
	out := r.ls.Get(-1)
	r.ls.Pop(1)
	switch x := out.(type) {
	case lua.LNumber:
		g := float64(x)
		if math.IsNaN(g) || g < 0 {
			return 0, false, fmt.Errorf("scripting: net.voice_hears returned %v, want a gain from 0 to %v", g, MaxVoiceGain)
		}
		return min(g, MaxVoiceGain), true, nil
	case lua.LBool:
		if x {
			return 1, true, nil
		}
		return 0, true, nil
	}
	if out == lua.LNil {
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("scripting: net.voice_hears returned a %s, want a gain, false or nil", out.Type())
}
