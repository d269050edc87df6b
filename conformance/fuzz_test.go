package conformance

import (
	"testing"
)

// FuzzSnapshot feeds the snapshot decoder arbitrary bytes, with and
// without project types and prior state: it must not panic, and what it
// accepts must account for every byte.
func FuzzSnapshot(f *testing.F) {
	b, _ := transcriptSnapshot(f)
	f.Add(b, false, false)
	f.Add((&bitWriter{}).settledHeader().put(0, 2).b, true, false)
	f.Add([]byte{}, false, true)
	// Moving bodies' states predicted from the header's gap and from a gap
	// of their own, every difference 0 and one a step off.
	predicted := (&bitWriter{}).gapHeader().flag(false).
		flag(true).entity(Entity{5, 1}).flag(false).flag(true).flag(true).flag(false).put(0x7f, 7).
		flag(true).entity(Entity{6, 2}).flag(false).flag(true).flag(true).flag(true).put(3, 4).put(0b110, 3).put(0x3f, 6).
		flag(false)
	f.Add(predicted.b, true, false)
	schema, err := ParseSchema(fingerprintVectors(f, schemaFile)["two-types"].input)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, read, project bool) {
		ctx := settled
		ctx.Read = read
		if project {
			ctx.Project = schema.Project
		}
		s, err := ParseSnapshot(b, ctx)
		if err != nil {
			return
		}
		if (s.Bits+7)/8 != len(b) {
			t.Fatalf("accepted %d bytes holding %d bits", len(b), s.Bits)
		}
		sum := s.HeaderBits + 2 // the two lists' final 0 bits
		for _, e := range s.Entries {
			sum += e.Bits
		}
		if sum > s.Bits {
			t.Fatalf("the parts take %d bits of %d", sum, s.Bits)
		}
	})
}

// FuzzCommandPacket: no panic, and an accepted packet has the formula's
// length.
func FuzzCommandPacket(f *testing.F) {
	f.Add(mustHex(f, "0100000088130000e603000080e21f08fe010b"), 2, 2)
	f.Add(make([]byte, 14), 0, 0)
	f.Fuzz(func(t *testing.T, b []byte, axes, buttons int) {
		p, err := ParseCommandPacket(b, axes, buttons)
		if err != nil {
			return
		}
		if len(b) != CommandPacketLen(len(p.Commands), axes, buttons) {
			t.Fatalf("accepted %d bytes for %d commands", len(b), len(p.Commands))
		}
	})
}

// FuzzPayload: a Data payload's sections from either end; no panic.
func FuzzPayload(f *testing.F) {
	f.Add(append([]byte{FlagRelay}, mustHex(f, "023c01ff80c801034080")...), true)
	f.Add(append([]byte{FlagReliable}, mustHex(f, "020000020000000000020068690100050000000000030068656c")...), false)
	f.Fuzz(func(t *testing.T, b []byte, fromServer bool) {
		p, err := ParsePayload(b, fromServer)
		if err == nil && len(p.Packet) > len(b) {
			t.Fatal("the packet proper is longer than the payload")
		}
	})
}

// FuzzDatagram hands any bytes to the decoder of their header's kind,
// opening sealed kinds under the handshake vectors' key; no panic.
func FuzzDatagram(f *testing.F) {
	for _, v := range handshakeVectors(f) {
		f.Add(v.datagram)
	}
	key := counting(0x40, 32)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseHello(b)
		_, _ = ParseChallenge(b)
		_, _ = ParseWelcome(b)
		_, _, _ = OpenWelcome(key, b)
		_, _ = ParseRefuse(b)
		_, _, _ = OpenSealedRefuse(key, b)
		_, _ = ParseGoodbye(b)
		_, _ = ParseConn(b)
		_, _ = ParsePlayers(b)
		_, _ = ParseSchema(b)
		_, _ = ParseActions(b)
		if len(b) >= SealedTokenLen {
			_, _ = OpenToken(key, b[:SealedTokenLen])
		}
	})
}
