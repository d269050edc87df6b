// Package handshake encodes and decodes the join messages of the vkm
// protocol and the 12-byte header every datagram of the protocol starts
// with, and holds the rules that decide whether two ends can play together:
// protocol version, fingerprints and tick rate (DESIGN.md, "Packages":
// transport; the model's join and NetRefusal).
//
// The package is sans-IO and keeps no state: each message has an Append
// method that writes its body after a Header, and a ParseXxx function that
// reads a body back. Parsers are strict (a body must be exactly as long as
// its layout and every field canonical) and never panic on any input, so a
// datagram from anyone can be handed to them.
//
// A join, seen from the client:
//
//	client                                   server
//	Hello(token 0), padded to HelloSize  -->
//	                                     <-- Challenge(token T)   keeps nothing
//	Hello(token T, connect token), padded -->
//	                                     <-- Welcome(token T)     seats the address
//	                                      or Refuse(reason)
//	Data(token T) ...                    <-> Data(token T) ...
//	Goodbye(token T)                     <-> (either end, once)
//
// The connect token rides only in the echoing Hello, and only to a server
// that holds a key; with one, the Welcome, Data and Goodbye are sealed
// (transport/seal) with the header in the clear as associated data.
package handshake
