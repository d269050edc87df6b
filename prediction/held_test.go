package prediction

import (
	"testing"
	"time"

	"vkm/internal/entity"
)

func TestTrackMovingSince(t *testing.T) {
	var tr Track
	tr.Add(10, entity.Transform{X: 1})
	if tr.MovingSince(0) {
		t.Error("one sample is not motion")
	}
	tr.Add(11, entity.Transform{X: 2})
	if !tr.MovingSince(11) || tr.MovingSince(12) {
		t.Error("moving at 11, and nothing said since")
	}
	tr.Add(12, entity.Transform{X: 2})
	if tr.MovingSince(12) {
		t.Error("the newest two samples are equal: at rest")
	}
}

func TestInterpHeld(t *testing.T) {
	p := NewInterp(64, 64)
	p.Arrive(100, 0)
	p.Advance(time.Second / 64)
	if p.Held() {
		t.Fatal("held with two ticks of delay to run through")
	}
	for range 10 {
		p.Advance(time.Second / 64)
	}
	if !p.Held() || p.Time() != 100 {
		t.Fatalf("not held at the newest snapshot: %v at %v", p.Held(), p.Time())
	}
}
