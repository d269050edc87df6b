package netmsg

import (
	"encoding/binary"
	"hash/fnv"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// Limits of a script bundle. Protocol constants: a client refuses a bundle
// past them, so a server must not send one.
const (
	// MaxBundleFiles is the most files one bundle holds: far beyond a
	// project's scripts and prefabs.
	MaxBundleFiles = 1024
	// MaxBundlePath is the longest path in a bundle, in bytes; it matches
	// the spawn path limit: a path inside a project.
	MaxBundlePath = 128
	// BundleHeader is the bytes of a bundle message before its files:
	// kind, two ticks, the hash and the file count.
	BundleHeader = 1 + 4 + 4 + 8 + 2
	// bundleFileHeader is the bytes of each file besides its path and
	// content: the path's length u16 and the content's u32.
	bundleFileHeader = 2 + 4
)

// Bundle is a script bundle (KindBundle), a dev server's hot reload as it
// travels: every script and prefab that differs from what the server
// started with (so a client's copy does not depend on having seen earlier
// reloads), a hash of them to compare in both ends' logs, and when it
// takes effect: at a server tick, and at the receiving client's own tick
// that the server will run at that server tick. On the wire:
//
//	kind u8 = 1, server tick u32, client tick u32, hash u64, files u16,
//	then per file in path order: path length u16, path, size u32, bytes
type Bundle struct {
	ServerTick uint32
	ClientTick uint32
	// Hash is BundleHash(Files).
	Hash uint64
	// Files maps each path, relative to the project folder with forward
	// slashes, to the file's content.
	Files map[string][]byte
}

// BundleHash is FNV-1a over files in path order, each path and content
// preceded by its length as a u64.
func BundleHash(files map[string][]byte) uint64 {
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

// Size returns the length of b's message: what Append writes.
func (b *Bundle) Size() int {
	n := BundleHeader
	for p, data := range b.Files {
		n += bundleFileHeader + len(p) + len(data)
	}
	return n
}

// Check returns the *ParseError ParseBundle would refuse b's files with,
// the hash aside: more than MaxBundleFiles, or a path CheckBundlePath
// refuses. A server checks a bundle so before it sends one every dev
// client would end on.
func (b *Bundle) Check() error {
	if len(b.Files) > MaxBundleFiles {
		return failf(FormatBundle, "%d files, at most %d", len(b.Files), MaxBundleFiles)
	}
	for _, p := range slices.Sorted(maps.Keys(b.Files)) {
		if err := CheckBundlePath(p); err != nil {
			return err
		}
	}
	return nil
}

// Append appends b's message, its files in path order. The files must pass
// Check and each hold less than 4 GiB.
func (b *Bundle) Append(dst []byte) []byte {
	dst = append(dst, byte(KindBundle))
	dst = binary.LittleEndian.AppendUint32(dst, b.ServerTick)
	dst = binary.LittleEndian.AppendUint32(dst, b.ClientTick)
	dst = binary.LittleEndian.AppendUint64(dst, b.Hash)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(b.Files)))
	for _, p := range slices.Sorted(maps.Keys(b.Files)) {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(p)))
		dst = append(dst, p...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b.Files[p])))
		dst = append(dst, b.Files[p]...)
	}
	return dst
}

// ParseBundle reads a bundle message. It refuses another kind, more than
// MaxBundleFiles files, a path CheckBundlePath refuses or one said twice,
// a message cut short, bytes left over, and files that do not match the
// hash. The bundle's files are copies: msg may be reused.
func ParseBundle(msg []byte) (*Bundle, error) {
	if len(msg) < BundleHeader || Kind(msg[0]) != KindBundle {
		return nil, fail(FormatBundle)
	}
	b := &Bundle{
		ServerTick: binary.LittleEndian.Uint32(msg[1:5]),
		ClientTick: binary.LittleEndian.Uint32(msg[5:9]),
		Hash:       binary.LittleEndian.Uint64(msg[9:17]),
		Files:      map[string][]byte{},
	}
	count := int(binary.LittleEndian.Uint16(msg[17:19]))
	if count > MaxBundleFiles {
		return nil, failf(FormatBundle, "%d files", count)
	}
	r := msg[BundleHeader:]
	for range count {
		if len(r) < 2 {
			return nil, fail(FormatBundle)
		}
		n := int(binary.LittleEndian.Uint16(r))
		if n > MaxBundlePath || len(r) < 2+n {
			return nil, fail(FormatBundle)
		}
		p := string(r[2 : 2+n])
		r = r[2+n:]
		if err := CheckBundlePath(p); err != nil {
			return nil, err
		}
		if _, dup := b.Files[p]; dup {
			return nil, failf(FormatBundle, "%s twice", p)
		}
		if len(r) < 4 {
			return nil, fail(FormatBundle)
		}
		size := binary.LittleEndian.Uint32(r)
		r = r[4:]
		if uint64(size) > uint64(len(r)) {
			return nil, fail(FormatBundle)
		}
		b.Files[p] = append([]byte(nil), r[:size]...)
		r = r[size:]
	}
	if len(r) != 0 {
		return nil, failf(FormatBundle, "%d bytes after the files", len(r))
	}
	if BundleHash(b.Files) != b.Hash {
		return nil, failf(FormatBundle, "the files do not match the hash")
	}
	return b, nil
}

// CheckBundlePath refuses, with a *ParseError, a path a bundle may not
// write: not inside the project folder (absolute, with "..", a backslash
// or a colon, or past MaxBundlePath bytes), or neither a script (.lua) nor
// a prefab (.toml).
func CheckBundlePath(p string) error {
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\:") || len(p) > MaxBundlePath {
		return failf(FormatBundle, "path %q is not inside the project folder", p)
	}
	if ext := path.Ext(p); ext != ".lua" && ext != ".toml" {
		return failf(FormatBundle, "%q is neither a script nor a prefab", p)
	}
	return nil
}
