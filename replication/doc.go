package replication

// # Snapshot layout
//
// A snapshot is one Data payload, packed with wire.Writer (least
// significant bit first) and zero-padded to a whole byte; a reader refuses
// padding that is not zero and bytes after the end. Widths in bits:
//
//	header
//	  full               1   the widths W below: 1: W = 32 (whole values);
//	                           0: W = 16 (their low bits)
//	  tick               W   the server tick of the round
//	  stated             1   0: the own occupant is the last one stated;
//	                           1: own? 1, then the own occupant (ID below)
//	  commands?          1   then: newest command sequence W,
//	                           judged client tick W, queue low water 4
//	  gap?               1   then: G − 1 (4), the gap of the moving
//	                           bodies' states predicted "from the header's
//	                           gap" (turn.go)
//	removals           repeat { 1, ID } then 0
//	entries            repeat { 1, entry } then 0      (the own entity first)
//
//	ID                 slot: 7-bit groups, generation: 3-bit groups; each
//	                   group followed by 1 when another follows (8 + 4 bits
//	                   for slot < 128, generation < 8)
//	entry
//	  ID
//	  fresh              1   the entry lists every component the entity has
//	  moving             1   1: a moving body's Transform and Rigidbody and
//	                           nothing else, as its state: whole (x 22,
//	                           y 22, vx 16, vy 16, its turn) or predicted
//	                           from a state the client holds (see
//	                           turn.go); the entry ends there
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
//	                   follows), then vx 16, vy 16 (1 cm/s), spinning 1,
//	                   angular velocity 20 (0.0005 rad/s) when spinning;
//	                   awake 1 when not moving
//	CharacterController grounded 1
//	NetSpawn           path length 8, path bytes, pose x, y, angle, scale
//	                   as float64s, slot count 6, then per slot uid 32 and
//	                   slot 24
//	project component  each field's code in its Codec's width, in order
//
// Signed quantities use the wire package's quantisers, whose middle code is
// an exact zero and whose lowest code is never written. A moving body with
// slot < 128 and generation < 8 that does not turn is an entry of 1 + 12 +
// 1 + 1 + 1 + 76 + 1 = 93 bits whole; predicted from the header's gap,
// one moving and turning steadily (on a circle, say) is 1 + 12 + 1 + 1 +
// 2 + 7 = 24 bits when every part comes out as predicted, two more for
// each part a step off (about 26 to 28 in all); a body come to rest is
// said once more in 1 + 12 + 1 + 1 + 4 + 1 + 2 = 22 bits (its Rigidbody
// alone, when it stopped where the last snapshot put it).
//
// The command block has a presence bit so a snapshot written before a
// player's first command (or by a server that tracks none) carries none;
// the command queue fills it through Peer.SetCommands. Both ends run the
// same build, checked at join by the schema fingerprint, so fields the
// header needs later are added in place rather than versioned.
//
// # Header
//
// Most headers are 60 bits (full 0, tick 16, stated 0, commands 1 + 16 +
// 16 + 4, gap 1 + 4). Each short form resolves against something the receiver holds:
//
//   - tick: to the value with those low 16 bits nearest (within −32768 ..
//     +32767) the tick of the last snapshot the receiver read, which is
//     its newest, since a connection delivers only ever newer packets. The
//     Peer writes it short only when it has had a snapshot acknowledged
//     (the receiver read that one, and since then only later ones), no
//     tick sent since that one went below the tick before it, the tick is
//     not below the last sent, and it is at most 32767 past the
//     acknowledged snapshot's. Every tick the receiver may have read last
//     then lies between the acknowledged one and this one.
//   - newest command sequence: to the highest value with those low bits
//     not above the newest sequence the client has made (Refs.Sequence;
//     the server cannot have received a later one), so exact while the
//     server is less than 65536 commands behind the client's newest:
//     17 minutes at 64 Hz, far beyond any connection timeout.
//   - judged client tick: to the value nearest the client's current tick
//     (Refs.ClientTick). A judged tick is that of a command the client
//     made, or at most prediction.MaxDepth past one, and the server takes
//     no command older than those it has run: it trails the client's
//     clock by the trip there and back and the queue, and by no more than
//     a connection's timeout of silence, and leads it by no more than
//     MaxDepth. So exact within ±32767 ticks: 8.5 minutes at 64 Hz.
//     Judged 0 (nothing judged yet) goes whole, since the client's tick
//     may be anywhere then.
//
// The full form is written whenever the tick may not go short or judged
// is 0; it costs 48 bits more. Own is stated while the Peer has not had a
// snapshot acknowledged since the own occupant last changed (including
// to none): a snapshot stating a new occupant that is lost, or whose
// acknowledgement is, is followed by others stating it until one is
// acknowledged. Once one is, the receiver has read it, and every snapshot
// it can read later was sent later still, within the same run of that
// occupant (or states another), so "the last one stated" is this one. A
// return to an earlier occupant starts a new run: a snapshot naming the
// one in between may have been read.
//
// The receiver (Snapshot) keeps the tick and own occupant of the last
// snapshot it read; a short form with none read before is refused. The
// server takes every snapshot the connection delivered as read, so a
// client that drops one unapplied still reads its header
// (Snapshot.DecodeHeader).
//
// # What a client may hold
//
// The server's baseline mirrors what the client holds, on the assumption
// that the client applies each snapshot as Snapshot's doc says and only ever
// newer packets (the transport refuses stale ones). Removals come before
// entries, so a slot destroyed and refilled between two snapshots meets the
// removal first and the newcomer is built fresh; an entry naming another
// occupant than the one the client holds at its slot replaces it too.
