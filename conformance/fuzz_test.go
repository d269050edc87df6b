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
