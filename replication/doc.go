package replication

// # Snapshot layout
//
// A snapshot is one Data payload, packed with wire.Writer (least
// significant bit first) and zero-padded to a whole byte; a reader refuses
// padding that is not zero and bytes after the end. Widths in bits:
//
//	header
//	  tick              32   the server tick of the round
//	  own?               1   then the own occupant (ID below)
//	  commands?          1   then: newest command sequence 32,
//	                           judged client tick 32, queue low water 4
//	removals           repeat { 1, ID } then 0
//	entries            repeat { 1, entry } then 0      (the own entity first)
//
//	ID                 slot: 7-bit groups, generation: 3-bit groups; each
//	                   group followed by 1 when another follows (8 + 4 bits
//	                   for slot < 128, generation < 8)
//	entry
//	  ID
//	  fresh              1   the entry lists every component the entity has
//	  engine mask        4   Transform, Rigidbody, CharacterController, NetSpawn
//	  project?           1   only when the schema has project types; then a
//	                           mask of one bit per project type
//	  per type in the masks, in wire order:
//	    carried          1   0: the entity no longer has it
//	    bits                 when carried
//
//	Transform          x 22, y 22 (1 mm), angle 18 (wrapped to ±π), then 1
//	                   bit "scale is not 1" and the scale as a float32
//	Rigidbody          moving 1 (0: every velocity is zero and none
//	                   follows), then vx 16, vy 16 (1 cm/s), angular
//	                   velocity 16 (0.01 rad/s); awake 1
//	CharacterController grounded 1
//	NetSpawn           path length 8, path bytes, pose x, y, angle, scale
//	                   as float64s, slot count 6, then per slot uid 32 and
//	                   slot 24
//	project component  each field's code in its Codec's width, in order
//
// Signed quantities use the wire package's quantisers, whose middle code is
// an exact zero and whose lowest code is never written. A moving, unscaled
// body with slot < 128 and generation < 8 is an entry of 1 + 12 + 1 + 4 (+1
// with project types) + 2 + 63 + 50 = 134 bits, 16.75 bytes; a body come to
// rest is said once more in 1 + 12 + 1 + 4 + 1 + 1 + 2 = 22 bits (its
// Rigidbody alone, when it stopped where the last snapshot put it).
//
// The command block has a presence bit so a snapshot written before a
// player's first command (or by a server that tracks none) carries none;
// the command queue fills it through Peer.SetCommands. Both ends run the
// same build, checked at join by the schema fingerprint, so fields the
// header needs later are added in place rather than versioned.
//
// # What a client may hold
//
// The server's baseline mirrors what the client holds, on the assumption
// that the client applies each snapshot as Snapshot's doc says and only ever
// newer packets (the transport refuses stale ones). Removals come before
// entries, so a slot destroyed and refilled between two snapshots meets the
// removal first and the newcomer is built fresh; an entry naming another
// occupant than the one the client holds at its slot replaces it too.
