package project

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// storedZipOf packs the project in dir as the browser downloads it.
func storedZipOf(t testing.TB, dir string) []byte {
	t.Helper()
	p, err := LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteZipStored(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestStoredZipReadsAsTheDeflatedOne: the stored archive holds the files
// the deflated one does, archive/zip reads it, and readStoredZip reads
// both it and a stored archive archive/zip wrote as the same files; the
// project loads from it as from disk.
func TestStoredZipReadsAsTheDeflatedOne(t *testing.T) {
	for _, dir := range []string{"../../projects/arena", "../../projects/crowd"} {
		stored, deflated := storedZipOf(t, dir), zipOf(t, dir)
		want := map[string]string{}
		zr, err := zip.NewReader(bytes.NewReader(deflated), int64(len(deflated)))
		if err != nil {
			t.Fatal(err)
		}
		// The same files again, stored by archive/zip, with a folder's
		// own entry as zip tools write them.
		var again bytes.Buffer
		zw := zip.NewWriter(&again)
		if _, err := zw.Create(zr.Comment + "/"); err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			want[f.Name] = string(b)
			w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(b)
		}
		zw.SetComment(zr.Comment)
		zw.Close()
		for name, arch := range map[string][]byte{"WriteZipStored": stored, "archive/zip": again.Bytes()} {
			fsys, comment, err := readStoredZip(arch)
			if err != nil {
				t.Fatalf("%s, %s: %v", dir, name, err)
			}
			if comment != zr.Comment || !reflect.DeepEqual(fsys.files, toBytes(want)) {
				t.Fatalf("%s, %s: read %d files, comment %q; want %d, %q", dir, name, len(fsys.files), comment, len(want), zr.Comment)
			}
			var names []string
			for n := range want {
				names = append(names, n)
			}
			if err := fstest.TestFS(fsys, names...); err != nil {
				t.Fatalf("%s, %s: %v", dir, name, err)
			}
		}
		sr, err := zip.NewReader(bytes.NewReader(stored), int64(len(stored)))
		if err != nil {
			t.Fatalf("archive/zip reads the stored archive: %v", err)
		}
		for _, f := range sr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			if err != nil || string(b) != want[f.Name] || f.Method != zip.Store {
				t.Fatalf("archive/zip reads %s as %d bytes (method %d, %v)", f.Name, len(b), f.Method, err)
			}
		}
		disk, err := LoadProject(dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := LoadZip(stored)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := settings(p), settings(disk); !reflect.DeepEqual(got, want) {
			t.Fatalf("from the stored archive:\n%+v\nfrom disk:\n%+v", got, want)
		}
		t.Logf("%s: %d bytes stored, %d deflated, %d files", dir, len(stored), len(deflated), len(want))
	}
}

func toBytes(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

// TestStoredZipRefuses: a compressed file, a damaged one, a path out of
// the archive, a name twice and a truncated archive are errors that say
// what is wrong.
func TestStoredZipRefuses(t *testing.T) {
	good := storedZipOf(t, "../../projects/arena")
	var deflated bytes.Buffer
	zw := zip.NewWriter(&deflated)
	w, _ := zw.Create("game/project.toml")
	w.Write([]byte(minimalProject))
	zw.Close()
	storedOf := func(files ...string) []byte {
		var b bytes.Buffer
		z := &storedZipWriter{w: &b}
		for _, f := range files {
			z.add(f, []byte("x"))
		}
		z.close("game")
		return b.Bytes()
	}
	flipped := bytes.Clone(good)
	flipped[zipLocalLen+int(flipped[26])+int(flipped[27])<<8] ^= 1 // the first file's first byte
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"deflated", deflated.Bytes(), "compressed"},
		{"damaged", flipped, "checksum"},
		{"outside", storedOf("game/../../etc/passwd"), "a file named"},
		{"twice", storedOf("game/a", "game/a"), "twice"},
		{"file and folder", storedOf("game/a", "game/a/b"), "a file and a folder"},
		{"truncated", good[:len(good)/2], "no end record"},
		{"empty", nil, "no end record"},
	} {
		_, _, err := readStoredZip(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
	fsys, _, err := readStoredZip(storedOf("game/a/b", "game/c"))
	if err != nil {
		t.Fatal(err)
	}
	if list, err := fs.ReadDir(fsys, "game"); err != nil || len(list) != 2 || !list[0].IsDir() || list[1].Name() != "c" {
		t.Fatalf("ReadDir(game) = %v, %v", list, err)
	}
}

// FuzzReadStoredZip: the browser's archive comes from the network;
// whatever its bytes, readStoredZip returns files or an error, never
// panics, and what it returns is a valid file system.
func FuzzReadStoredZip(f *testing.F) {
	f.Add(storedZipOf(f, "../../projects/arena"))
	f.Add(zipOf(f, "../../projects/arena"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fsys, _, err := readStoredZip(b)
		if err != nil {
			return
		}
		var names []string
		for n := range fsys.files {
			names = append(names, n)
		}
		if err := fstest.TestFS(fsys, names...); err != nil {
			t.Fatal(err)
		}
	})
}
