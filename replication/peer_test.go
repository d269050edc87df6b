package replication

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// burstWorld is the confirmed-not-sent scenario: a player and one crate.
func burstWorld(m *sim) *wEnt {
	player := m.w.spawn(0, Described, 1)
	player.rb = &entity.Rigidbody{}
	player.cc = &entity.CharacterController{Grounded: true}
	m.own = player.id
	crate := m.w.spawn(1, Described, 5)
	crate.rb = &entity.Rigidbody{}
	return crate
}

// runBurst converges, moves the crate through 30 rounds of total loss, stops
// it, then runs a clean link; it returns how the receiver ends up differing.
func runBurst(t *testing.T, foldAtSend bool) string {
	m := newSim(t, 1)
	m.foldAtSend = foldAtSend
	crate := burstWorld(m)
	m.settle(8)
	if d := m.converged(); d != "" {
		t.Fatalf("before the burst: %s", d)
	}
	m.loss = 1
	for range 30 {
		moving(crate, 3)
		m.step()
	}
	moving(crate, 0)
	m.settle(10)
	t.Logf("seed 1, fold at send %v: %d snapshots sent, %d applied (30 lost in a row), %d in flight at the end",
		foldAtSend, m.sent, m.rc.applied, m.p.InFlight())
	return m.converged()
}

func TestConfirmedNotSent(t *testing.T) {
	if d := runBurst(t, false); d != "" {
		t.Fatalf("after the burst the client differs from the server:\n%s", d)
	}
	// The wrong rule, claims folded at send time, freezes the crate where
	// the client last heard of it: the test can tell the two apart.
	d := runBurst(t, true)
	if d == "" {
		t.Fatal("folding claims at send time went unnoticed")
	}
	t.Logf("folded at send time, the client is left with:\n%s", d)
}

func TestClaimsWaitForAcknowledgement(t *testing.T) {
	m := newSim(t, 2)
	crate := burstWorld(m)
	m.settle(6)
	b := m.p.base(crate.id.Slot)
	before := b.comp(TypeTransform).ver

	moving(crate, 2)
	m.loss = 1
	m.step()
	if got := m.p.base(crate.id.Slot).comp(TypeTransform).ver; got != before {
		t.Fatal("a sent, unacknowledged Transform reached the baseline")
	}
	if m.p.InFlight() == 0 {
		t.Fatal("nothing in flight after a send")
	}
	// The acknowledgement folds it: deliver by hand and answer acked.
	m.loss = 0
	m.step() // resends the move (the baseline still differs); delivered next round
	m.step()
	m.step()
	after := *m.p.base(crate.id.Slot).comp(TypeTransform)
	want := expected(m.r)[crate.id.Slot].comps[TypeTransform]
	held := m.vers[verKey{crate.id.Slot, TypeTransform, after.ver}]
	if after.state() != present || !bytes.Equal(held, want) {
		t.Fatalf("acknowledged Transform not in the baseline: %x, want %x", held, want)
	}
}

func TestConvergence(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		m := newSim(t, seed)
		m.check = true
		m.twin = newPeer(m.s)
		if seed%2 == 1 {
			// Entities are placed within 50 m of the player: some far.
			m.reach(Reach{Near: 24, Every: ReachEvery})
		}
		m.loss, m.dup, m.reorder, m.ackLoss = 1.0/3, 0.1, 0.2, 0.05
		player := m.w.spawn(0, Described, 0)
		player.rb = &entity.Rigidbody{}
		player.cc = &entity.CharacterController{}
		player.health = entity.Values{100}
		m.own = player.id
		for s := uint32(1); s < 40; s++ {
			churn(m, s)
		}
		changes := 0
		for range 400 {
			for range 3 {
				churn(m, 1+uint32(m.rng.IntN(45)))
				changes++
			}
			moving(player, m.rng.Float64()*4-2)
			m.step()
		}
		// Settle: the world stops, the link stays as bad for a while, then
		// turns clean.
		m.stopAndConverge(100, fmt.Sprintf("seed %d", seed))
		quiet := m.headerOwnBytes()
		for range 5 {
			m.step()
			st := m.p.Stats()
			if st.Entries != 1 || st.Removals != 0 || m.lastSize != quiet || st.News {
				t.Fatalf("seed %d: a settled world is not quiet: %v, news %v (header + own = %d bytes)", seed, st, st.News, quiet)
			}
		}
		t.Logf("seed %d: %d rounds, %d world changes, %d snapshots applied of %d sent, %d entities; settled snapshot %d bytes",
			seed, m.round, changes, m.rc.applied, m.sent, len(m.rc.ents), quiet)
	}
}

// TestCrowdedConvergence: more moves every round than a snapshot holds,
// over a lossy link, with churn. Every snapshot is full, so most
// candidates wait and lazy plans matter; the twin Peer, planning every
// candidate up front, must write the same bytes, and the world must still
// converge once it stops.
func TestCrowdedConvergence(t *testing.T) {
	for _, seed := range []uint64{11, 12, 13, 14} {
		m := newSim(t, seed)
		m.check = true
		m.twin = newPeer(m.s)
		m.loss, m.dup, m.reorder, m.ackLoss = 0.2, 0.05, 0.1, 0.05
		player := m.w.spawn(0, Described, 0)
		player.rb = &entity.Rigidbody{}
		player.cc = &entity.CharacterController{}
		m.own = player.id
		for i := range 120 {
			e := m.w.spawn(uint32(1+i), Described, float64(i))
			e.rb = &entity.Rigidbody{Awake: true}
		}
		m.p.Watch(m.w.ents[60].id) // the twin watches it too
		full := 0
		for range 200 {
			for _, e := range m.w.ents {
				if e.rb != nil && m.rng.IntN(4) != 0 {
					moving(e, m.rng.Float64()*8-4)
				}
			}
			churn(m, 121+uint32(m.rng.IntN(10)))
			m.step()
			if m.p.Stats().Deferred > 0 {
				full++
			}
		}
		if full < 150 {
			t.Fatalf("seed %d: only %d of 200 snapshots were full: the test does not crowd them", seed, full)
		}
		m.stopAndConverge(100, fmt.Sprintf("seed %d", seed))
		t.Logf("seed %d: %d rounds, %d full snapshots, %d applied of %d sent", seed, m.round, full, m.rc.applied, m.sent)
	}
}

// churn makes one random change at slot: spawn, destroy, refill, move,
// stop, or add or drop a component.
func churn(m *sim, slot uint32) {
	e := m.w.ents[slot]
	if e == nil {
		if m.rng.IntN(2) == 0 {
			return
		}
		silence := Described
		switch m.rng.IntN(10) {
		case 0:
			silence = StaticBody
		case 1:
			silence = InInstance
		}
		e = m.w.spawn(slot, silence, m.rng.Float64()*100-50)
		if m.rng.IntN(3) == 0 {
			e.ns = &entity.NetSpawn{Prefab: "prefabs/pickup.toml", Pose: *e.t,
				Slots: []entity.SpawnSlot{{UID: 1, Slot: slot + 1000}}}
		}
		if m.rng.IntN(2) == 0 {
			e.rb = &entity.Rigidbody{}
		}
		return
	}
	switch m.rng.IntN(12) {
	case 0:
		m.w.destroy(slot)
	case 1:
		m.w.destroy(slot)
		m.w.spawn(slot, Described, m.rng.Float64()*10)
	case 2, 3, 4, 5:
		moving(e, m.rng.Float64()*20-10)
	case 6:
		if e.rb != nil {
			moving(e, 0)
		}
	case 7:
		if e.health == nil {
			e.health = entity.Values{100}
		} else {
			e.health = nil
		}
	case 8:
		if e.health != nil {
			e.health[0] = float64(m.rng.IntN(101))
		}
	case 9:
		if e.cc == nil {
			e.cc = &entity.CharacterController{Grounded: true}
		} else {
			e.cc = nil
		}
	case 10:
		if e.tint == nil {
			e.tint = entity.Values{m.rng.Float64()}
		} else {
			e.tint = nil
		}
	case 11:
		e.t.Scale = []float64{1, 2, 0.5, 3000, math.Inf(1)}[m.rng.IntN(5)]
	}
}

func TestBodiesWithinFourSnapshots(t *testing.T) {
	const bodies = 117
	m := newSim(t, 117)
	player := m.w.spawn(0, Described, 0)
	player.rb = &entity.Rigidbody{}
	player.cc = &entity.CharacterController{}
	m.own = player.id
	for i := range bodies {
		e := m.w.spawn(uint32(1+i), Described, float64(i))
		e.t.Y = float64(i % 7)
		e.rb = &entity.Rigidbody{Awake: true}
	}
	reached := map[uint32]int{}
	var lastDeferred []uint32
	worst, total, entries := 0, 0, 0
	for snap := 1; snap <= 8; snap++ {
		for _, e := range m.w.ents {
			// Falling and turning: every quantised field changes every
			// round, so each body's Transform and Rigidbody both differ.
			moving(e, 1+float64(e.id.Slot%5)+0.07*float64(snap))
			e.rb.VY = -float64(e.id.Slot%3) - 9.81*float64(snap)/64
			e.rb.AngularVelocity = 0.5 + 0.05*float64(snap)
		}
		m.step()
		m.deliver() // this snapshot arrives before the next round is built
		sn := &m.rc.sn
		written := map[uint32]bool{}
		for i, en := range sn.Entries {
			written[en.ID.Slot] = true
			if en.ID != player.id {
				if _, ok := reached[en.ID.Slot]; !ok {
					reached[en.ID.Slot] = snap
				}
			}
			// Everything deferred last round goes before anything that was
			// written last round.
			if i > 0 && i <= len(lastDeferred) && !contains(lastDeferred, en.ID.Slot) {
				t.Errorf("snapshot %d: entry %d is %v, but %d were deferred last round", snap, i, en.ID, len(lastDeferred))
			}
		}
		if sn.Entries[0].ID != player.id {
			t.Fatalf("snapshot %d: first entry %v, not the own entity", snap, sn.Entries[0].ID)
		}
		lastDeferred = lastDeferred[:0]
		for slot := uint32(1); slot <= bodies; slot++ {
			if !written[slot] {
				lastDeferred = append(lastDeferred, slot)
			}
		}
		st := m.p.Stats()
		worst = max(worst, st.Bytes)
		total += st.Bytes
		entries += st.Entries - 1
		t.Logf("snapshot %d: %d bytes, %d bodies written, %d deferred", snap, st.Bytes, st.Entries-1, st.Deferred)
	}
	last := 0
	for slot := uint32(1); slot <= bodies; slot++ {
		n, ok := reached[slot]
		if !ok || n > 4 {
			t.Errorf("body at slot %d first reached the client in snapshot %d", slot, n)
		}
		last = max(last, n)
	}
	perBody := float64(total-8*m.headerOwnBytes()) / float64(entries)
	t.Logf("117 moving bodies: all reached the client by snapshot %d; %.1f bytes per snapshot, %.2f bytes per moving body, worst snapshot %d of %d bytes",
		last, float64(total)/8, perBody, worst, budgetBytes)
}

func contains(s []uint32, v uint32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestDeferredGoesFirst(t *testing.T) {
	m := newSim(t, 9)
	m.budget = 200 // room for about ten bodies
	for i := range 40 {
		e := m.w.spawn(uint32(i), Described, float64(i))
		e.rb = &entity.Rigidbody{}
	}
	for _, e := range m.w.ents {
		moving(e, 1)
	}
	m.step()
	first := m.p.Stats()
	if first.Deferred == 0 {
		t.Fatalf("nothing deferred at a 200-byte budget: %v", first)
	}
	m.deliver()
	got1 := entrySlots(&m.rc.sn)
	for _, e := range m.w.ents {
		moving(e, 1)
	}
	m.step()
	m.deliver()
	got2 := entrySlots(&m.rc.sn)
	for _, s := range got2 {
		if contains(got1, s) {
			t.Fatalf("round 2 wrote slot %d again before the %d deferred ones (round 1: %v, round 2: %v)", s, first.Deferred, got1, got2)
		}
	}
	t.Logf("round 1 wrote %v; round 2 wrote %v (%d deferred)", got1, got2, m.p.Stats().Deferred)
}

func entrySlots(sn *Snapshot) []uint32 {
	var s []uint32
	for _, e := range sn.Entries {
		s = append(s, e.ID.Slot)
	}
	return s
}

func TestRefilledSlot(t *testing.T) {
	m := newSim(t, 3)
	old := m.w.spawn(5, Described, 1)
	old.rb = &entity.Rigidbody{VX: 1}
	old.cc = &entity.CharacterController{Grounded: true}
	old.health = entity.Values{40}
	m.settle(5)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
	// Destroyed and spawned into the same slot between two sends.
	m.w.destroy(5)
	newer := m.w.spawn(5, Described, 9)
	m.step()
	m.deliver()
	sn := &m.rc.sn
	if len(sn.Removals) != 1 || sn.Removals[0] != old.id {
		t.Fatalf("removals %v, want [%v]", sn.Removals, old.id)
	}
	if len(sn.Entries) != 1 || sn.Entries[0].ID != newer.id || !sn.Entries[0].Fresh {
		t.Fatalf("entries %+v, want the newcomer %v, fresh", sn.Entries, newer.id)
	}
	got := m.rc.ents[5]
	if got.id != newer.id || len(got.comps) != 1 || got.comps[TypeTransform] == nil {
		t.Fatalf("client holds %v at slot 5, want %v with only a Transform", got, newer.id)
	}
	m.settle(4)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
}

func TestSilence(t *testing.T) {
	m := newSim(t, 4)
	floor := m.w.spawn(1, StaticBody, 0)
	floor.t.Angle = 0.001
	spawned := m.w.spawn(2, StaticBody, 3)
	spawned.ns = &entity.NetSpawn{Prefab: "prefabs/ledge.toml", Pose: entity.Transform{X: 3, Scale: 1},
		Slots: []entity.SpawnSlot{{UID: 7, Slot: 3}}}
	child := m.w.spawn(3, InInstance, 4)
	child.rb = &entity.Rigidbody{VX: 1}
	root := m.w.spawn(4, Described, 4)
	root.ns = &entity.NetSpawn{Prefab: "prefabs/crate.toml", Pose: entity.Transform{X: 4, Scale: 1}}
	for range 5 {
		moving(child, 2) // a child that moves is still not described
		floor.t.X += 1   // nor is a static body, whatever the host does to it
		m.step()
		m.deliver()
	}
	if e := m.rc.ents[1]; e != nil {
		t.Errorf("static body described: %v", e)
	}
	if e := m.rc.ents[3]; e != nil {
		t.Errorf("prefab-instance child described: %v", e)
	}
	if e := m.rc.ents[2]; e == nil || len(e.comps) != 1 || e.comps[TypeNetSpawn] == nil {
		t.Errorf("static spawned root: got %v, want its NetSpawn alone", e)
	}
	if e := m.rc.ents[4]; e == nil || e.comps[TypeNetSpawn] == nil || e.comps[TypeTransform] == nil {
		t.Errorf("described spawned root: got %v, want its NetSpawn and Transform", e)
	}
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
	m.step()
	if st := m.p.Stats(); st.Entries != 0 {
		t.Errorf("silent world still talking: %v", st)
	}
}

func TestOwnEntityEverySnapshot(t *testing.T) {
	m := newSim(t, 5)
	player := m.w.spawn(2, Described, 0)
	player.rb = &entity.Rigidbody{}
	player.ns = &entity.NetSpawn{Prefab: "prefabs/player.toml", Pose: entity.Transform{Scale: 1}}
	player.health = entity.Values{100}
	m.own = player.id
	m.budget = 100 // far too small for the rest, never for the own entity (72 bytes with its spawn)
	for i := range 20 {
		e := m.w.spawn(uint32(10+i), Described, float64(i))
		moving(e, 1)
	}
	for round := range 6 {
		m.step()
		m.deliver()
		sn := &m.rc.sn
		if sn.Own != player.id || len(sn.Entries) == 0 || sn.Entries[0].ID != player.id {
			t.Fatalf("round %d: own %v, entries %v", round, sn.Own, entrySlots(sn))
		}
		own := &sn.Entries[0]
		for _, typ := range []int{TypeTransform, TypeRigidbody, typHealth} {
			if !own.Has(typ) {
				t.Errorf("round %d: own entity's type %d missing though unchanged", round, typ)
			}
		}
		if spawn := own.Has(TypeNetSpawn); spawn != (round < 2) {
			// Said in round 0, acknowledged in round 1's Acknowledge
			// (after the round-0 packet arrives), so absent from round 2.
			t.Errorf("round %d: own NetSpawn written = %v", round, spawn)
		}
	}
}

func TestScaleBounded(t *testing.T) {
	m := newSim(t, 6)
	e := m.w.spawn(0, Described, 0)
	e.t.Scale = 2000
	m.step()
	if e.t.Scale != wire.MaxScale {
		t.Fatalf("server kept scale %v, want it bounded to %v", e.t.Scale, wire.MaxScale)
	}
	m.deliver()
	if got := m.rc.sn.Entries[0].Transform.Scale; got != wire.MaxScale {
		t.Fatalf("client read scale %v", got)
	}
	e.t.Scale = math.NaN()
	m.step()
	if e.t.Scale != 1 {
		t.Fatalf("NaN scale became %v, want 1", e.t.Scale)
	}
}

func TestNonFiniteNeverOnTheWire(t *testing.T) {
	var s Schema
	r := NewRound(&s)
	r.Begin(1)
	r.Entity(entity.ID{Slot: 0, Gen: 1}, Described)
	r.Transform(entity.Transform{X: math.NaN(), Y: math.Inf(1), Angle: math.Inf(-1), Scale: 1})
	r.Rigidbody(entity.Rigidbody{VX: math.Inf(-1), VY: math.NaN(), AngularVelocity: math.Inf(1)})
	p := NewPeer(&s)
	payload := p.Write(nil, r, entity.None, budgetBytes)
	var sn Snapshot
	if err := sn.Decode(&s, payload, Refs{}); err != nil {
		t.Fatal(err)
	}
	e := sn.Entries[0]
	if e.Transform.X != 0 || e.Transform.Y != wire.Position.Max() || e.Transform.Angle != 0 {
		t.Errorf("transform %+v: want NaN→0, +Inf→%v, angle Inf→0", e.Transform, wire.Position.Max())
	}
	if e.Rigidbody.VX != -wire.Velocity.Max() || e.Rigidbody.VY != 0 || e.Rigidbody.AngularVelocity != wire.AngularVelocity.Max() {
		t.Errorf("rigidbody %+v", e.Rigidbody)
	}
}

func TestProjectComponentReplicates(t *testing.T) {
	m := newSim(t, 7)
	e := m.w.spawn(3, Described, 0)
	e.health = entity.Values{100}
	m.settle(3)
	e.health[0] = 63.4 // the int codec rounds it to 63
	m.step()
	m.deliver()
	sn := &m.rc.sn
	if len(sn.Entries) != 1 {
		t.Fatalf("entries %v", entrySlots(sn))
	}
	en := &sn.Entries[0]
	if len(en.Changes) != 1 || en.Changes[0].Type != typHealth || en.Changes[0].Values[0] != 63 {
		t.Fatalf("changes %+v, want Health hp 63 alone", en.Changes)
	}
	e.health = nil
	m.step()
	m.deliver()
	if en := &m.rc.sn.Entries[0]; !en.Removes(typHealth) {
		t.Fatalf("Health removal not said: %+v", en.Changes)
	}
	m.settle(3)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
}

func TestRemovalsAndBudget(t *testing.T) {
	// Many deaths at once: removals beyond the budget wait, and the slot of
	// a removal not yet said takes no newcomer.
	m := newSim(t, 8)
	for i := range 600 {
		m.w.spawn(uint32(i), Described, float64(i))
	}
	m.budget = 300
	m.settle(60)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
	for i := range 600 {
		m.w.destroy(uint32(i))
	}
	m.w.spawn(599, Described, 1) // its removal comes last of all
	m.step()
	if st := m.p.Stats(); st.RemovalsDeferred == 0 || st.Entries != 0 {
		t.Fatalf("first snapshot after 600 deaths: %v", st)
	}
	m.settle(20)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
}

func TestBudgetTooSmallForHeader(t *testing.T) {
	s := testSchema(t)
	r := NewRound(s)
	r.Begin(1)
	p := NewPeer(s)
	if got := p.Write([]byte{9}, r, entity.None, 2); len(got) != 1 {
		t.Fatalf("wrote %d bytes into a 2-byte budget", len(got)-1)
	}
	p.Sent(1)
	if p.InFlight() != 0 {
		t.Fatal("an unwritten snapshot was bound to a sequence")
	}
}

func TestPendingBounded(t *testing.T) {
	m := newSim(t, 10)
	e := m.w.spawn(0, Described, 0)
	m.loss = 1
	for range maxPending + 50 {
		moving(e, 1)
		m.step()
	}
	if n := m.p.InFlight(); n > maxPending {
		t.Fatalf("%d snapshots held, above %d", n, maxPending)
	}
	m.settle(10)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
}

func TestLostButApplied(t *testing.T) {
	// Every acknowledgement lost while a new entity appears and dies: the
	// client did apply it, so the server must still report it gone.
	m := newSim(t, 11)
	m.w.spawn(0, Described, 0)
	m.settle(3)
	m.ackLoss = 1
	ghost := m.w.spawn(7, Described, 3)
	ghost.health = entity.Values{5}
	m.step()
	m.step()
	m.ackLoss = 0
	m.w.destroy(7)
	m.step()
	m.step()
	m.settle(6)
	if d := m.converged(); d != "" {
		t.Fatalf("the client keeps a ghost:\n%s", d)
	}
}

func TestWriteAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop what it is given")
	}
	s := testSchema(t)
	w := newWorld()
	for i := range 117 {
		e := w.spawn(uint32(i), Described, float64(i))
		moving(e, 1)
	}
	r := NewRound(s)
	peers := []*Peer{NewPeer(s), NewPeer(s)}
	var buf []byte
	seq := wire.Seq(0)
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	run := func() {
		for _, e := range w.ents {
			moving(e, 1)
		}
		w.build(t, r, 1)
		for _, p := range peers {
			p.Acknowledge(acks)
			buf = p.Write(buf[:0], r, entity.None, budgetBytes)
			seq++
			p.Sent(seq)
		}
	}
	for range 10 {
		run()
	}
	// w.build sorts the world's slots into a fresh slice each call: that
	// one allocation is the test's, not the round's.
	if n := testing.AllocsPerRun(50, run); n > 1 {
		t.Fatalf("%.1f allocations per round after warm-up", n)
	}
}

// TestArenaBandwidth prints bytes per second per peer at 64 snapshots a
// second for an arena-like world: 4 players running and jumping among 16
// crates at rest and 20 static bodies, then the same world settled.
func TestArenaBandwidth(t *testing.T) {
	m := newSim(t, 64)
	var players []*wEnt
	for i := range 4 {
		p := m.w.spawn(uint32(i), Described, float64(3*i))
		p.rb = &entity.Rigidbody{Awake: true}
		p.cc = &entity.CharacterController{Grounded: true}
		p.health = entity.Values{100}
		players = append(players, p)
	}
	m.own = players[0].id
	for i := range 16 {
		c := m.w.spawn(uint32(10+i), Described, float64(i))
		c.rb = &entity.Rigidbody{}
	}
	for i := range 20 {
		m.w.spawn(uint32(100+i), StaticBody, float64(i))
	}
	m.settle(10)
	measure := func(rounds int, move bool) float64 {
		total := 0
		for tick := range rounds {
			if move {
				for i, p := range players {
					moving(p, 3+float64(i)+0.3*float64(tick%7))
					p.rb.VY = 4 - 9.81*float64(tick%50)/64
					p.t.Y += p.rb.VY / 64
					p.cc.Grounded = tick%50 == 0
				}
			}
			m.step()
			total += m.lastSize
		}
		return float64(total) / float64(rounds)
	}
	movingBytes := measure(256, true)
	for _, p := range players {
		moving(p, 0)
		p.rb.VY = 0
	}
	m.settle(10)
	settledBytes := measure(64, false)
	t.Logf("4 moving players: %.1f bytes/snapshot, %.0f bytes/s per peer at 64/s", movingBytes, 64*movingBytes)
	t.Logf("settled world: %.1f bytes/snapshot (header + own entity), %.0f bytes/s per peer at 64/s", settledBytes, 64*settledBytes)
	if d := m.converged(); d != "" {
		t.Fatal(d)
	}
}

// TestNews checks WriteStats.News: a snapshot has news while it says
// anything the connection has not confirmed, and while a snapshot with
// news awaits its answer; a settled world's snapshots have none.
func TestNews(t *testing.T) {
	m := newSim(t, 11)
	player := m.w.spawn(0, Described, 0)
	player.rb = &entity.Rigidbody{}
	m.own = player.id
	crate := m.w.spawn(5, Described, 3)
	crate.rb = &entity.Rigidbody{}
	news := func() bool { return m.p.Stats().News }
	m.step()
	if !news() {
		t.Fatal("a first snapshot has no news")
	}
	m.settle(6)
	if news() {
		t.Fatalf("a settled world's snapshot has news: %v", m.p.Stats())
	}
	for _, tc := range []struct {
		what   string
		change func()
	}{
		{"a crate moved", func() { moving(crate, 2) }},
		{"the crate stopped", func() { moving(crate, 0) }},
		{"the own entity moved", func() { moving(player, 1) }},
		{"the own entity stopped", func() { moving(player, 0) }},
		{"a crate destroyed", func() { m.w.destroy(5) }},
		{"a crate spawned", func() { m.w.spawn(6, Described, 1) }},
	} {
		tc.change()
		m.step()
		if !news() {
			t.Fatalf("%s: no news in %v", tc.what, m.p.Stats())
		}
		// Said, but not yet answered: still news while it is in flight.
		m.step()
		if !news() {
			t.Fatalf("%s: no news with the snapshot that said it in flight (%d in flight)", tc.what, m.p.InFlight())
		}
		m.settle(4)
		if news() {
			t.Fatalf("%s: settled, still news: %v", tc.what, m.p.Stats())
		}
	}
}

// TestReach: with the own entity at the origin and bodies every 2 m out to
// 78 m, all moving every round and room for all of them, each snapshot
// holds every body within a reach of 24 m and each farther one exactly
// one round in Every, about as many far ones each round; a far body that
// comes within reach is written the round it does; and once everything
// stops over a lossy link, the client holds the server's world and the
// snapshots go quiet.
func TestReach(t *testing.T) {
	m := newSim(t, 21)
	m.check = true
	m.twin = newPeer(m.s)
	reach := Reach{Near: 24, Every: ReachEvery}
	m.reach(reach)
	player := m.w.spawn(0, Described, 0)
	player.rb = &entity.Rigidbody{}
	m.own = player.id
	var bodies []*wEnt
	for i := range 40 {
		bodies = append(bodies, m.w.spawn(uint32(1+i), Described, float64(2*i)))
	}
	every := uint64(reach.Every)
	near := func(e *wEnt) bool { return math.Hypot(e.t.X, e.t.Y) <= reach.Near }
	m.settle(8)
	farWritten := map[uint32]int{}
	for round := range 64 {
		for _, e := range bodies {
			moving(e, 0.5) // 7.8 mm a round: every round is news
		}
		m.step()
		m.deliver()
		written := map[uint32]bool{}
		for _, en := range m.rc.sn.Entries {
			written[en.ID.Slot] = true
		}
		if d := m.p.Stats().Deferred; d != 0 {
			t.Fatalf("round %d: %d deferred with room for everything", round, d)
		}
		far := 0
		for _, e := range bodies {
			turn := (m.p.writes+uint64(e.id.Slot))%every == 0
			switch {
			case near(e) && !written[e.id.Slot]:
				t.Fatalf("round %d: body %v at %.1f m, within reach, not written", round, e.id, e.t.X)
			case !near(e) && written[e.id.Slot] != turn:
				t.Fatalf("round %d: body %v at %.1f m written %v on a round that is its turn: %v", round, e.id, e.t.X, written[e.id.Slot], turn)
			case !near(e) && turn:
				far++
				farWritten[e.id.Slot]++
			}
		}
		if far < 6 || far > 8 {
			t.Fatalf("round %d: %d far bodies written, want 27/%d", round, far, every)
		}
	}
	for slot, n := range farWritten {
		if n != 64/int(every) {
			t.Fatalf("far body at slot %d written %d times in 64 rounds, want %d", slot, n, 64/int(every))
		}
	}
	// A far body comes within reach on a round that is not its turn.
	e := bodies[30]
	for (m.p.writes+1+uint64(e.id.Slot))%every == 0 {
		m.step()
		m.deliver()
	}
	e.t.X = 10
	m.step()
	m.deliver()
	got := false
	for _, en := range m.rc.sn.Entries {
		got = got || en.ID == e.id
	}
	if !got {
		t.Fatal("a body moved within reach was not written that round")
	}
	// Stop everything over a lossy link; the world must converge and go
	// quiet.
	m.loss, m.dup, m.reorder, m.ackLoss = 0.3, 0.05, 0.1, 0.05
	for range 40 {
		for _, e := range bodies {
			moving(e, 1)
		}
		m.step()
	}
	m.stopAndConverge(40, "reach")
	quiet := m.headerOwnBytes()
	for range 2 * int(every) {
		m.step()
		if st := m.p.Stats(); st.Entries != 1 || m.lastSize != quiet || st.News {
			t.Fatalf("a settled world is not quiet: %+v", st)
		}
	}
	t.Logf("%d rounds, %d snapshots applied of %d sent", m.round, m.rc.applied, m.sent)
}
