package handshake

import (
	"encoding/binary"
	"fmt"
)

// FNV-1a 64-bit parameters.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// fnvAdd folds p into the FNV-1a 64 hash h.
func fnvAdd(h uint64, p []byte) uint64 {
	for _, c := range p {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// fnvAddString folds s into the FNV-1a 64 hash h.
func fnvAddString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// nonzeroFP maps a fingerprint of 0 to 1, because 0 means "compare with
// nothing" in a Hello.
func nonzeroFP(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// ActionFingerprint returns the fingerprint of a project's input actions in
// slot order: FNV-1a 64 over each name preceded by its length as 4 bytes
// little endian (the length separates the names, whatever they contain).
// Order matters, because a command carries actions by slot: the same names
// in another order give another fingerprint. No actions give 0, which Check
// compares with nothing; any actions give a non-zero value.
func ActionFingerprint(names []string) uint64 {
	if len(names) == 0 {
		return 0
	}
	h := fnvOffset
	var n [4]byte
	for _, name := range names {
		binary.LittleEndian.PutUint32(n[:], uint32(len(name)))
		h = fnvAdd(h, n[:])
		h = fnvAddString(h, name)
	}
	return nonzeroFP(h)
}

// WorldFingerprint returns the fingerprint of the entry scene file's bytes:
// FNV-1a 64, reading each CRLF as LF so that a checkout with Windows line
// endings matches one without. Empty data gives 0, which means "a world
// generated rather than loaded" and which Check compares with nothing; any
// other data gives a non-zero value.
func WorldFingerprint(data []byte) uint64 {
	if len(data) == 0 {
		return 0
	}
	h := fnvOffset
	for i, c := range data {
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	return nonzeroFP(h)
}

// Check compares what a server holds with what a joining client's Hello
// says it holds, and returns the Refuse to send if they cannot play
// together. The protocol version is not its business (Classify settles it
// from the header before a Hello's body is read), nor are ReasonFull and
// ReasonDeclined, which depend on the seats and the game.
//
// The rules, in order:
//   - different schema fingerprints: ReasonMismatch;
//   - when both action fingerprints are non-zero, a different action count
//     or fingerprint: ReasonMismatch (0 on either side is compared with
//     nothing: a server whose behaviors define no actions yet adopts its
//     first player's);
//   - when both world fingerprints are non-zero, different ones:
//     ReasonMismatch (0 is a generated world, compared with nothing);
//   - different tick rates: ReasonTickRate, carrying both rates.
//
// On a refusal both ends should log MismatchLine of what they hold.
func Check(server, client Hello) (Refuse, bool) {
	mismatch := Refuse{Reason: ReasonMismatch}
	if server.SchemaFP != client.SchemaFP {
		return mismatch, false
	}
	if server.ActionFP != 0 && client.ActionFP != 0 &&
		(server.ActionFP != client.ActionFP || server.ActionCount != client.ActionCount) {
		return mismatch, false
	}
	if server.WorldFP != 0 && client.WorldFP != 0 && server.WorldFP != client.WorldFP {
		return mismatch, false
	}
	if server.TickRate != client.TickRate {
		return Refuse{
			Reason:         ReasonTickRate,
			ServerTickRate: server.TickRate,
			ClientTickRate: client.TickRate,
		}, false
	}
	return Refuse{}, true
}

// MismatchLine returns one line saying what an end holds, in a fixed format
// with fixed-width fields, for example
//
//	protocol=1 schema=0123456789abcdef actions=5/0123456789abcdef world=0123456789abcdef tick_rate=64
//
// Both ends log it when a join is refused, so the two lines can be diffed
// to see which of them differs. The player name and dev flag are left out:
// they are not compared.
func MismatchLine(h Hello) string {
	return fmt.Sprintf("protocol=%d schema=%016x actions=%d/%016x world=%016x tick_rate=%d",
		Version, h.SchemaFP, h.ActionCount, h.ActionFP, h.WorldFP, h.TickRate)
}
