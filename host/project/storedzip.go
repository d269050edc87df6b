package project

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The browser's archive: a zip whose files are stored, not compressed.
// The server gzips the whole download instead (which compresses text as
// well as each file deflated would), so the browser client needs neither
// archive/zip nor compress/flate, a sixth of a megabyte of its code: it
// reads such an archive with readStoredZip, a reader of this one form,
// and nothing else. Any zip reader reads what writeStoredZip writes.

// Zip record signatures and sizes (PKWARE's APPNOTE, sections 4.3.7,
// 4.3.12, 4.3.16).
const (
	zipLocalSig   = 0x04034b50
	zipCentralSig = 0x02014b50
	zipEndSig     = 0x06054b50
	zipLocalLen   = 30
	zipCentralLen = 46
	zipEndLen     = 22
	zipVersion    = 20     // 2.0: what stored files need
	zipUTF8       = 0x0800 // general purpose flag 11: names are UTF-8
)

// storedFile is one file of a stored archive being written.
type storedFile struct {
	name   string
	crc    uint32
	size   uint32
	offset uint32
}

// storedZipWriter writes a stored archive: files, then the central
// directory and its end record, with the comment.
type storedZipWriter struct {
	w     io.Writer
	n     int64
	files []storedFile
	err   error
}

func (z *storedZipWriter) write(b []byte) {
	if z.err != nil {
		return
	}
	m, err := z.w.Write(b)
	z.n += int64(m)
	z.err = err
}

// add writes one file. The caller keeps within MaxZipFiles and
// MaxZipBytes, far below what needs zip's 64-bit records.
func (z *storedZipWriter) add(name string, data []byte) {
	f := storedFile{name: name, crc: crc32.ChecksumIEEE(data), size: uint32(len(data)), offset: uint32(z.n)}
	h := make([]byte, zipLocalLen, zipLocalLen+len(name))
	le := binary.LittleEndian
	le.PutUint32(h[0:], zipLocalSig)
	le.PutUint16(h[4:], zipVersion)
	le.PutUint16(h[6:], zipUTF8)
	// method 0 (stored), time and date 0 (none)
	le.PutUint32(h[14:], f.crc)
	le.PutUint32(h[18:], f.size)
	le.PutUint32(h[22:], f.size)
	le.PutUint16(h[26:], uint16(len(name)))
	h = append(h, name...)
	z.write(h)
	z.write(data)
	z.files = append(z.files, f)
}

// close writes the central directory and the end record with comment.
func (z *storedZipWriter) close(comment string) error {
	le := binary.LittleEndian
	start := z.n
	for _, f := range z.files {
		h := make([]byte, zipCentralLen, zipCentralLen+len(f.name))
		le.PutUint32(h[0:], zipCentralSig)
		le.PutUint16(h[4:], zipVersion)
		le.PutUint16(h[6:], zipVersion)
		le.PutUint16(h[8:], zipUTF8)
		le.PutUint32(h[16:], f.crc)
		le.PutUint32(h[20:], f.size)
		le.PutUint32(h[24:], f.size)
		le.PutUint16(h[28:], uint16(len(f.name)))
		le.PutUint32(h[38:], 0o644<<16) // external attributes: a regular file's mode, as Unix zip tools set it
		le.PutUint32(h[42:], f.offset)
		h = append(h, f.name...)
		z.write(h)
	}
	e := make([]byte, zipEndLen, zipEndLen+len(comment))
	le.PutUint32(e[0:], zipEndSig)
	le.PutUint16(e[8:], uint16(len(z.files)))
	le.PutUint16(e[10:], uint16(len(z.files)))
	le.PutUint32(e[12:], uint32(z.n-start))
	le.PutUint32(e[16:], uint32(start))
	le.PutUint16(e[20:], uint16(len(comment)))
	e = append(e, comment...)
	z.write(e)
	return z.err
}

// readStoredZip reads an archive of stored files (writeStoredZip's, or
// any zip tool's with compression off) into a read-only file system, and
// returns it with the archive's comment. Compressed files, encrypted
// files, 64-bit records and files that overlap the records are errors.
func readStoredZip(b []byte) (*memFS, string, error) {
	le := binary.LittleEndian
	// Messages are put together by hand: each fmt call with its values
	// would cost the download more code than the reader's own.
	bad := func(why string) (*memFS, string, error) {
		return nil, "", errors.New("not a stored zip archive: " + why)
	}
	itoa := strconv.Itoa
	// The end record is the last one: search back over the longest
	// comment it may have.
	end := -1
	for i := len(b) - zipEndLen; i >= 0 && i >= len(b)-zipEndLen-0xffff; i-- {
		if le.Uint32(b[i:]) == zipEndSig && i+zipEndLen+int(le.Uint16(b[i+20:])) == len(b) {
			end = i
			break
		}
	}
	if end < 0 {
		return bad("no end record")
	}
	e := b[end:]
	count, size, start := int(le.Uint16(e[10:])), int(le.Uint32(e[12:])), int(le.Uint32(e[16:]))
	if le.Uint16(e[4:]) != 0 || le.Uint16(e[6:]) != 0 || int(le.Uint16(e[8:])) != count {
		return bad("an archive of several disks")
	}
	if count > MaxZipFiles {
		return bad(itoa(count) + " files, more than " + itoa(MaxZipFiles))
	}
	if start > end || size > end-start {
		return bad("the central directory (" + itoa(size) + " bytes at " + itoa(start) + ") is outside the archive")
	}
	comment := string(e[zipEndLen:])
	fsys := &memFS{files: map[string][]byte{}}
	cd := b[start : start+size]
	total := 0
	for i := range count {
		if len(cd) < zipCentralLen || le.Uint32(cd) != zipCentralSig {
			return bad("file " + itoa(i) + ": no central directory record")
		}
		flags, method := le.Uint16(cd[8:]), le.Uint16(cd[10:])
		crc, csize, usize := le.Uint32(cd[16:]), le.Uint32(cd[20:]), le.Uint32(cd[24:])
		nlen, xlen, clen := int(le.Uint16(cd[28:])), int(le.Uint16(cd[30:])), int(le.Uint16(cd[32:]))
		off := int64(le.Uint32(cd[42:]))
		if len(cd) < zipCentralLen+nlen+xlen+clen {
			return bad("file " + itoa(i) + ": its record runs past the central directory")
		}
		name := string(cd[zipCentralLen : zipCentralLen+nlen])
		cd = cd[zipCentralLen+nlen+xlen+clen:]
		switch {
		case method != 0:
			return bad(name + " is compressed (method " + itoa(int(method)) + ")")
		case flags&0x1 != 0:
			return bad(name + " is encrypted")
		case csize != usize || csize == 0xffffffff || off == 0xffffffff:
			return bad(name + ": sizes " + itoa(int(csize)) + " and " + itoa(int(usize)))
		case off+zipLocalLen > int64(start):
			return bad(name + ": its header is past the files")
		}
		l := b[off:]
		if le.Uint32(l) != zipLocalSig {
			return bad(name + ": no local header")
		}
		data := int64(off) + zipLocalLen + int64(le.Uint16(l[26:])) + int64(le.Uint16(l[28:]))
		if data+int64(csize) > int64(start) {
			return bad(name + ": its " + itoa(int(csize)) + " bytes run past the files")
		}
		content := b[data : data+int64(csize) : data+int64(csize)]
		if crc32.ChecksumIEEE(content) != crc {
			return bad(name + ": its checksum does not match")
		}
		if total += len(content); total > MaxZipBytes {
			return bad("more than " + itoa(MaxZipBytes>>20) + " MiB")
		}
		if strings.HasSuffix(name, "/") { // a folder's own entry
			name = strings.TrimSuffix(name, "/")
			if _, isFile := fsys.files[name]; isFile || !fs.ValidPath(name) {
				return bad("a folder named " + strconv.Quote(name))
			}
			fsys.addDir(name)
			continue
		}
		if !fs.ValidPath(name) || name == "." {
			return bad("a file named " + strconv.Quote(name))
		}
		if _, dup := fsys.files[name]; dup || fsys.isDir(name) {
			return bad(name + " twice")
		}
		fsys.files[name] = content
		fsys.addDir(path.Dir(name))
	}
	for name := range fsys.files {
		if fsys.isDir(name) {
			return bad(name + " is a file and a folder")
		}
	}
	fsys.sortDirs()
	return fsys, comment, nil
}

// memFS is a read-only file system of files in memory and the folders
// that hold them.
type memFS struct {
	files map[string][]byte
	dirs  map[string][]string // a folder's entries' names, sorted
}

func (m *memFS) isDir(name string) bool { _, ok := m.dirs[name]; return ok }

// addDir makes name a folder, and each folder above it.
func (m *memFS) addDir(name string) {
	if m.dirs == nil {
		m.dirs = map[string][]string{".": nil}
	}
	for name != "." {
		if _, ok := m.dirs[name]; ok {
			return
		}
		m.dirs[name] = nil
		name = path.Dir(name)
	}
}

// sortDirs lists each folder's entries.
func (m *memFS) sortDirs() {
	m.addDir(".")
	add := func(name string) {
		if name != "." {
			parent := path.Dir(name)
			m.dirs[parent] = append(m.dirs[parent], path.Base(name))
		}
	}
	for name := range m.files {
		add(name)
	}
	for name := range m.dirs {
		add(name)
	}
	for _, list := range m.dirs {
		slices.Sort(list)
	}
}

// Open implements fs.FS.
func (m *memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := m.files[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: len(b)}, data: b}, nil
	}
	if list, ok := m.dirs[name]; ok {
		return &memDir{fsys: m, path: name, info: memInfo{name: path.Base(name), dir: true}, list: list}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// memInfo is a file's or folder's fs.FileInfo and fs.DirEntry.
type memInfo struct {
	name string
	size int
	dir  bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return int64(i.size) }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i memInfo) Info() (fs.FileInfo, error) { return i, nil }

// memFile is an open file.
type memFile struct {
	info memInfo
	data []byte
	off  int
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Read(p []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += n
	return n, nil
}

// memDir is an open folder.
type memDir struct {
	fsys *memFS
	path string
	info memInfo
	list []string
	next int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Close() error               { return nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errors.New("is a directory")}
}

// ReadDir implements fs.ReadDirFile.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.list[d.next:]
	if n > 0 && len(left) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(left) {
		left = left[:n]
	}
	out := make([]fs.DirEntry, len(left))
	for i, name := range left {
		full := path.Join(d.path, name)
		if b, ok := d.fsys.files[full]; ok {
			out[i] = memInfo{name: name, size: len(b)}
		} else {
			out[i] = memInfo{name: name, dir: true}
		}
	}
	d.next += len(left)
	return out, nil
}
