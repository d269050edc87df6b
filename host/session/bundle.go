package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"vkm/transport"
)

// Messages on the reliable channel, server to client. The first byte says
// which.
const (
	// msgReload carries a script bundle and the tick it takes effect at.
	msgReload = 1
	// msgNoReload tells a client that did not join with --dev why it
	// cannot follow the reload the server is about to make.
	msgNoReload = 2
)

// Limits of a script bundle a client accepts.
const (
	// maxBundleFiles is far beyond a project's scripts and prefabs.
	maxBundleFiles = 1024
	// maxBundlePath matches the spawn path limit: a path inside a project.
	maxBundlePath = 128
	// bundleHeader is the bytes of a msgReload message before its files.
	bundleHeader = 1 + 4 + 4 + 8 + 2
)

// scriptBundle is a reload as it travels: every script and prefab that
// differs from what the server started with (so a client's copy does not
// depend on having seen earlier reloads), a hash of them to compare in
// both ends' logs, and when it takes effect: at a server tick, and at the
// receiving client's own tick that the server will run at that server tick.
type scriptBundle struct {
	serverTick uint32
	clientTick uint32
	hash       uint64
	files      map[string][]byte
}

// bundleHash is FNV-1a over the files in path order, each path and
// content length-prefixed.
func bundleHash(files map[string][]byte) uint64 {
	h := fnv.New64a()
	var n [8]byte
	for _, p := range slices.Sorted(maps.Keys(files)) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
		binary.LittleEndian.PutUint64(n[:], uint64(len(files[p])))
		h.Write(n[:])
		h.Write(files[p])
	}
	return h.Sum64()
}

// encode appends the msgReload message:
//
//	kind u8 = 1, server tick u32, client tick u32, hash u64, files u16,
//	then per file in path order: path length u16, path, size u32, bytes
//
// all little-endian.
func (b *scriptBundle) encode(dst []byte) []byte {
	dst = append(dst, msgReload)
	dst = binary.LittleEndian.AppendUint32(dst, b.serverTick)
	dst = binary.LittleEndian.AppendUint32(dst, b.clientTick)
	dst = binary.LittleEndian.AppendUint64(dst, b.hash)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(b.files)))
	for _, p := range slices.Sorted(maps.Keys(b.files)) {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(p)))
		dst = append(dst, p...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b.files[p])))
		dst = append(dst, b.files[p]...)
	}
	return dst
}

var errBundle = errors.New("session: malformed script bundle")

// decodeBundle reads a msgReload message. Every path must name a script or
// prefab inside the project folder (relative, no "..", ending in .lua or
// .toml, at most maxBundlePath bytes, said once); the hash must match the
// files. Anything else is an error, never a panic.
func decodeBundle(msg []byte) (*scriptBundle, error) {
	r := bytes.NewReader(msg)
	var head struct {
		Kind       uint8
		ServerTick uint32
		ClientTick uint32
		Hash       uint64
		Files      uint16
	}
	if err := binary.Read(r, binary.LittleEndian, &head); err != nil || head.Kind != msgReload {
		return nil, errBundle
	}
	if head.Files > maxBundleFiles {
		return nil, fmt.Errorf("%w: %d files", errBundle, head.Files)
	}
	b := &scriptBundle{serverTick: head.ServerTick, clientTick: head.ClientTick, hash: head.Hash, files: map[string][]byte{}}
	for range head.Files {
		var n uint16
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil || int(n) > maxBundlePath {
			return nil, errBundle
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return nil, errBundle
		}
		p := string(name)
		if err := checkBundlePath(p); err != nil {
			return nil, err
		}
		if _, dup := b.files[p]; dup {
			return nil, fmt.Errorf("%w: %s twice", errBundle, p)
		}
		var size uint32
		if err := binary.Read(r, binary.LittleEndian, &size); err != nil || int64(size) > int64(r.Len()) {
			return nil, errBundle
		}
		data := make([]byte, size)
		io.ReadFull(r, data)
		b.files[p] = data
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the files", errBundle, r.Len())
	}
	if bundleHash(b.files) != b.hash {
		return nil, fmt.Errorf("%w: the files do not match the hash", errBundle)
	}
	return b, nil
}

// checkBundlePath refuses a path a bundle may not write: outside the
// project folder, or neither a script nor a prefab.
func checkBundlePath(p string) error {
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\:") || len(p) > maxBundlePath {
		return fmt.Errorf("%w: path %q is not inside the project folder", errBundle, p)
	}
	if ext := path.Ext(p); ext != ".lua" && ext != ".toml" {
		return fmt.Errorf("%w: %q is neither a script nor a prefab", errBundle, p)
	}
	return nil
}

// noReloadMessage is the msgNoReload message with its sentence.
func noReloadMessage(sentence string) []byte {
	return append([]byte{msgNoReload}, sentence...)
}

// reloadLead is how many ticks ahead of the present a reload is scheduled
// so that its bundle reaches every dev client before that client runs the
// tick: the client runs ahead of the server by about a round trip plus
// its queue, and the bundle needs another one-way trip plus the time to
// trickle through the datagrams' spare room.
func reloadLead(tickRate int, maxRTT time.Duration, bundleBytes int) uint32 {
	// bytesPerSecond is what the channel can count on at 64 packets a
	// second with half of each datagram taken by snapshots.
	const bytesPerSecond = 64 * transport.MaxDataPayload / 2
	lead := 2*maxRTT + 100*time.Millisecond + time.Duration(bundleBytes)*time.Second/bytesPerSecond
	return uint32(lead.Seconds()*float64(tickRate)+0.999) + 10 // + the queue's deepest
}
