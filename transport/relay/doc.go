// Package relay lets a player join a server that cannot be reached from
// outside (no forwarded port, a NAT or a firewall that lets no datagram
// in) by a short join code such as K7M-Q2P@relay.example.org:27900.
//
// Three parties speak it, each as a sans-IO state machine with the
// caller's clock:
//
//   - Relay, the relay itself (cmd/relay runs one): a server registers
//     with it and is given a code; a joiner asks for the code and is
//     handed the server's public key; from then on the relay passes
//     datagrams between them. It knows each side only by the address it
//     sends from and tells neither the other's: the server sees a
//     joiner as a peer number, the joiner sees only the relay. It
//     limits each code's joiners and datagrams a second, each source's
//     join attempts a second, and forgets a code when its server leaves
//     or stops refreshing it.
//   - Host, a server's side: it registers (and refreshes the
//     registration) under a key pair of its own and carries its players'
//     datagrams in and out of the relay's envelopes.
//   - Joiner, a player's side.
//
// Every datagram between a joiner and its server is sealed end to end in
// a tunnel of its own (tunnel.go): the joiner agrees keys with the
// server's public key (X25519, then HKDF-SHA256) and seals each datagram
// with ChaCha20-Poly1305 under a counter with a replay window
// (transport/seal), so the relay, which holds neither private key, can
// neither read nor alter nor make one. The vkm session inside runs
// unchanged, sealed again under its connect token's keys when the
// server has a key, or in the clear inside the tunnel for keyless
// development play.
//
// The wire is described in docs/protocol.md, "Join codes and the relay".
package relay
