package replication

import "vkm/wire"

// SnapshotTick reads the server tick a snapshot payload was written at
// without decoding the rest: a client that holds two schemas across a
// reload picks the one the snapshot was written under by its tick.
func SnapshotTick(payload []byte) (uint32, bool) {
	t, err := wire.NewReader(payload).ReadUint32()
	return t, err == nil
}
