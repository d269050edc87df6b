package scripting

import "testing"

func TestVoiceJudge(t *testing.T) {
	r, _ := newTest(t, "function vkmRegisterBehaviors(r) end\nfunction vkmSetupNetwork(net) end\n")
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if r.HasVoiceJudge() {
		t.Fatal("the default net.voice_hears counts as the project's")
	}
	if g, decided, err := r.VoiceHears(1, 2); decided || err != nil || g != 0 {
		t.Fatalf("the default decided: %v %v %v", g, decided, err)
	}

	src := `function vkmRegisterBehaviors(r) end
function vkmSetupNetwork(net)
  function net.voice_hears(listener, speaker)
    if speaker == 1 then return false end
    if speaker == 2 then return 0.5 end
    if speaker == 3 then return true end
    if speaker == 4 then return 9 end
    if speaker == 5 then return "loud" end
    if speaker == 6 then error("no") end
    if speaker == 7 then return -1 end
  end
end`
	r, _ = newTest(t, src)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if !r.HasVoiceJudge() {
		t.Fatal("the project's net.voice_hears is not seen")
	}
	for _, c := range []struct {
		speaker uint16
		gain    float64
		decided bool
		err     bool
	}{
		{1, 0, true, false}, {2, 0.5, true, false}, {3, 1, true, false}, {4, MaxVoiceGain, true, false},
		{5, 0, false, true}, {6, 0, false, true}, {7, 0, false, true}, {8, 0, false, false},
	} {
		g, decided, err := r.VoiceHears(9, c.speaker)
		if g != c.gain || decided != c.decided || (err != nil) != c.err {
			t.Errorf("speaker %d: %v %v %v, want %v %v (error %v)", c.speaker, g, decided, err, c.gain, c.decided, c.err)
		}
	}
}
