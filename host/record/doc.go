// Package record writes a server's match down as it goes and plays it
// again offline, exactly.
//
// The simulation is exact, so a match is its project's files and what
// entered its simulation tick by tick: the join handler's runs, leaves,
// the drain, the messages and chat lines handed to the scripts, the round
// trips they read, each tick's reload and every seated player's command as
// the server ran it. A Writer is the server's session.Recorder: it writes
// a header holding the project folder (project.WriteZip's archive), then a
// record of events a second, each record length-prefixed and checksummed
// so that a file cut short by a crash plays up to its last whole record,
// with the world's hash (WorldHash) every HashEvery ticks. Commands are
// written as residuals from the one predicted (the last again, the next
// client tick, the drawn tick a tick on): a quiet player costs a byte, a
// quiet tick nothing past a run's count.
//
// A Player hands a session.Replayer, a server with no network, the
// recorded inputs in order, and compares each recorded hash with its own
// world's: a difference (a Mismatch) names the tick, which makes a
// recording a desync detector, and played on changed scripts
// (PlayConfig.Project), the first tick the change makes a difference to.
// Lua state cannot be saved, so there are no keyframes: a jump (PlayTo)
// replays from the start.
//
// docs/recording.md describes the file format and what a recording holds
// and does not.
package record
