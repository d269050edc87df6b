package netmsg

import (
	"encoding/binary"

	"vkm/internal/entity"
)

// KindInspect carries the developer's entity inspector both ways between a
// dev client and a dev server: the client names the entity it inspects
// (InspectAsk), and the server says how it replicates that entity to the
// client (InspectReport), a few times a second while it is inspected.
const KindInspect Kind = 14

// InspectAsk names the entity a dev client's developer inspects, client
// to server; entity.None stops the reports. On the wire:
//
//	kind u8 = 14, slot u32, generation u32    (9 bytes)
//
// A server that is not a dev server, or a client that did not join with
// --dev, gets no reports; a server from before kind 14 ignores it.
type InspectAsk struct {
	ID entity.ID
}

// InspectReport is what the server knows of replicating an inspected
// entity to the client that asked, server to client. On the wire:
//
//	kind u8 = 14, slot u32, generation u32, priority u32, bytes a second
//	u32, last written u32, ticks u32    (25 bytes)
//
// Priority is the rounds the entity has waited with something to say since
// it was last written to this client (a snapshot that cannot hold every
// entity writes the longest waiting first; 0 when nothing waits);
// BytesPerS the bytes its entries took in this client's snapshots over the
// last report's span; LastWritten the server tick of the last snapshot
// that held an entry for it (0: none since it was asked for); Entries how
// many entries it had since then.
type InspectReport struct {
	ID          entity.ID
	Priority    uint32
	BytesPerS   uint32
	LastWritten uint32
	Entries     uint32
}

const (
	inspectAskLen    = 9
	inspectReportLen = 25
)

// Append appends the ask.
func (a InspectAsk) Append(b []byte) []byte {
	b = append(b, byte(KindInspect))
	return appendID(b, a.ID)
}

// Append appends the report.
func (r InspectReport) Append(b []byte) []byte {
	b = appendID(append(b, byte(KindInspect)), r.ID)
	for _, v := range [...]uint32{r.Priority, r.BytesPerS, r.LastWritten, r.Entries} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func appendID(b []byte, id entity.ID) []byte {
	b = binary.LittleEndian.AppendUint32(b, id.Slot)
	return binary.LittleEndian.AppendUint32(b, id.Gen)
}

// readID reads an entity id that can be one: entity.None, or a slot up to
// entity.MaxSlot with a generation from 1 below 2^29, as Players does.
func readID(f Format, b []byte) (entity.ID, error) {
	id := entity.ID{Slot: binary.LittleEndian.Uint32(b[0:4]), Gen: binary.LittleEndian.Uint32(b[4:8])}
	if id.Slot > entity.MaxSlot || id.Gen >= 1<<29 || (id.Gen == 0 && id.Slot != 0) {
		return entity.None, failf(f, "no entity has slot %d and generation %d", id.Slot, id.Gen)
	}
	return id, nil
}

// ParseInspectAsk reads an ask: kind 14 of exactly 9 bytes.
func ParseInspectAsk(msg []byte) (InspectAsk, error) {
	if KindOf(msg) != KindInspect || len(msg) != inspectAskLen {
		return InspectAsk{}, fail(FormatInspect)
	}
	id, err := readID(FormatInspect, msg[1:])
	return InspectAsk{ID: id}, err
}

// ParseInspectReport reads a report: kind 14 of exactly 25 bytes, for an
// entity (not entity.None).
func ParseInspectReport(msg []byte) (InspectReport, error) {
	if KindOf(msg) != KindInspect || len(msg) != inspectReportLen {
		return InspectReport{}, fail(FormatInspect)
	}
	id, err := readID(FormatInspect, msg[1:])
	if err != nil {
		return InspectReport{}, err
	}
	if id.IsNone() {
		return InspectReport{}, failf(FormatInspect, "a report of no entity")
	}
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(msg[9+4*i:]) }
	return InspectReport{ID: id, Priority: u(0), BytesPerS: u(1), LastWritten: u(2), Entries: u(3)}, nil
}
