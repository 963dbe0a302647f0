package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// The cache of CRD work keeps, across runs, what a run learns about a CRD
// document that the next run would otherwise compute again: the head of a
// --crds document (what registering it needs) and, for a CRD an object
// used, the document's JSON (no YAML conversion) and the outcome of the
// server's CRD validation on it (crdkit.Load skips that validation: see
// crdkit.LoadOptions.Verdict). The compiled schemas and CEL programs are
// not kept: building them from the typed CRD costs a few milliseconds,
// and what is kept must give the same CRD, byte for byte, as compiling
// the document afresh.
//
// An entry is a file named by its key: the SHA-256 of the build's
// identity (buildIdentity), the entry's kind and the SHA-256 of the
// document's bytes, so that a document edited, or another build of
// crdkit, never finds another's entry. An entry is written to a
// temporary file and renamed into place, so that concurrent runs see a
// whole entry or none; it is read whole and checked (its key, its length,
// the SHA-256 of its contents): an entry that fails a check is ignored and
// written again. The cache never fails a run: when the directory cannot be
// read or written, the run does the work itself.
//
// The directory is $CRDKIT_CACHE_DIR, else crdkit under the user's cache
// directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). CRDKIT_CACHE_DIR=off
// and --no-cache turn it off. It holds at most cacheMaxBytes of entries:
// past that, a run that writes removes the entries used least recently.

// cacheFormat changes whenever what an entry holds or means changes.
const cacheFormat = "crdkit-cache-1"

// cacheMaxBytes bounds the cache directory; eviction brings it down to
// three quarters of it.
const cacheMaxBytes = 256 << 20

// Entry kinds, part of an entry's key.
const (
	entryHead byte = 'h' // a --crds document's head (crdhead.Head as JSON)
	entryCRD  byte = 'c' // a CRD document's JSON and its validation's warnings
	// entryVerdict: a CRD document's validation's warnings, for a
	// document read as JSON already (its sum is that of the JSON).
	entryVerdict byte = 'v'
)

// entryMagic starts every entry file.
var entryMagic = [8]byte{'c', 'r', 'd', 'k', 'i', 't', 'C', '1'}

// entryHeaderSize: magic, key, payload length, payload SHA-256.
const entryHeaderSize = 8 + 32 + 8 + 32

// entrySuffix ends the names of entry files; eviction removes only files
// named <64 hex digits><entrySuffix> and temporary files it made.
const (
	entrySuffix = ".entry"
	tmpPrefix   = ".tmp-"
)

// cache is the cache directory of one build of crdkit. A nil *cache is a
// cache that is off: it finds nothing and keeps nothing. It is safe for
// concurrent use, by goroutines and by processes.
type cache struct {
	dir string
	id  [32]byte // the build's identity and cacheFormat
	max int64    // cacheMaxBytes, smaller in tests

	evictOnce sync.Once
	writes    sync.WaitGroup // putAsync's
	// now is the clock (tests move it).
	now func() time.Time
}

// openCache returns the cache of this build in dir (created when
// missing), or nil when dir is "" or the build has no identity.
func openCache(dir string) *cache {
	id, ok := buildIdentity()
	if dir == "" || !ok {
		return nil
	}
	return newCache(dir, id)
}

// newCache returns the cache in dir of a build whose identity is id.
func newCache(dir string, id []byte) *cache {
	c := &cache{dir: dir, max: cacheMaxBytes, now: time.Now}
	h := sha256.New()
	h.Write([]byte(cacheFormat))
	h.Write([]byte{0})
	h.Write(id)
	h.Sum(c.id[:0])
	return c
}

// cacheDir is the cache directory the environment asks for: "" when off.
func cacheDir() string {
	switch d := os.Getenv("CRDKIT_CACHE_DIR"); d {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "crdkit")
	default:
		return d
	}
}

// cacheFlag adds --no-cache to fs; the function it returns opens the cache
// the flags and the environment ask for (nil when off).
func cacheFlag(fs *flags) func() *cache {
	off := fs.Bool("no-cache", false, "do not read or write the cache of CRD work ($CRDKIT_CACHE_DIR, else crdkit under the user's cache directory); the output is the same either way")
	return func() *cache {
		if *off {
			return nil
		}
		return openCache(cacheDir())
	}
}

// buildIdentity identifies this build of crdkit: the Go build ID recorded
// in the executable (it changes with any change to the sources, the
// dependencies, the toolchain or the flags), else a module version or a
// VCS revision without local modifications from the build info. A build
// with none of them (a modified clone built with -buildid=) has no
// identity, and no cache: nothing would tell its entries from another
// build's.
func buildIdentity() ([]byte, bool) {
	if id := executableBuildID(); id != "" {
		return []byte("buildid " + id), true
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, false
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && bi.Main.Sum != "" {
		return []byte("module " + bi.Main.Path + "@" + v + " " + bi.Main.Sum + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH), true
	}
	var rev string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value != "false":
			return nil, false
		}
	}
	if rev == "" {
		return nil, false
	}
	return []byte("vcs " + rev + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH), true
}

// executableBuildID reads the Go build ID from the start of the running
// executable, where the linker writes it, as `go tool buildid` reads it:
// in ELF, the note .note.go.buildid (name "Go", type 4); elsewhere, a
// string `\xff Go build ID: "..."` near the start of the text. It returns
// "" when it finds neither.
func executableBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, buf)
	return buildIDIn(buf[:n])
}

// buildIDIn finds a Go build ID in the first bytes of an executable.
func buildIDIn(b []byte) string {
	if bytes.HasPrefix(b, []byte("\x7fELF")) && len(b) > 5 && b[5] == 1 { // little-endian ELF
		// A note: namesz 4, descsz, type 4, "Go\x00\x00", the ID.
		note := []byte("\x04\x00\x00\x00Go\x00\x00")
		for i := 0; ; {
			j := bytes.Index(b[i:], note)
			if j < 0 {
				break
			}
			j += i
			if j >= 8 && j%4 == 0 && binary.LittleEndian.Uint32(b[j-8:]) == 4 {
				if n := int(binary.LittleEndian.Uint32(b[j-4:])); n > 0 && n < 1024 && j+8+n <= len(b) {
					return string(b[j+8 : j+8+n])
				}
			}
			i = j + 1
		}
	}
	const prefix, suffix = "\xff Go build ID: \"", "\"\n \xff"
	i := bytes.Index(b, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := b[i+len(prefix):]
	j := bytes.Index(rest, []byte(suffix))
	if j <= 0 || j > 1024 {
		return ""
	}
	return string(rest[:j])
}

// cacheKey is an entry's key.
type cacheKey [32]byte

// key returns the key of the entry of kind for a document whose bytes have
// the SHA-256 sum.
func (c *cache) key(kind byte, sum *[32]byte) cacheKey {
	var b [32 + 1 + 32]byte
	copy(b[:], c.id[:])
	b[32] = kind
	copy(b[33:], sum[:])
	return sha256.Sum256(b[:])
}

func (c *cache) path(k cacheKey) string {
	return filepath.Join(c.dir, hex.EncodeToString(k[:])+entrySuffix)
}

// get returns the fields of the entry k, ok false when there is none or
// it fails a check.
func (c *cache) get(k cacheKey) (fields [][]byte, ok bool) {
	if c == nil {
		return nil, false
	}
	f, err := os.Open(c.path(k))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() < entryHeaderSize || st.Size() > 1<<30 {
		return nil, false
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	if !bytes.Equal(data[:8], entryMagic[:]) || !bytes.Equal(data[8:40], k[:]) {
		return nil, false
	}
	payload := data[entryHeaderSize:]
	if binary.BigEndian.Uint64(data[40:48]) != uint64(len(payload)) {
		return nil, false
	}
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], data[48:80]) {
		return nil, false
	}
	for len(payload) > 0 {
		n, w := binary.Uvarint(payload)
		if w <= 0 || n > uint64(len(payload)-w) {
			return nil, false
		}
		fields = append(fields, payload[w:w+int(n)])
		payload = payload[w+int(n):]
	}
	if now := c.now(); now.Sub(st.ModTime()) > 24*time.Hour {
		// Used: eviction keeps the entries used last.
		_ = os.Chtimes(c.path(k), now, now)
	}
	return fields, true
}

// put writes the entry k, whose fields are fields, replacing any. Errors
// are ignored: the next run does the work again.
func (c *cache) put(k cacheKey, fields ...[]byte) {
	if c == nil {
		return
	}
	var payload []byte
	for _, f := range fields {
		payload = binary.AppendUvarint(payload, uint64(len(f)))
		payload = append(payload, f...)
	}
	sum := sha256.Sum256(payload)
	data := make([]byte, 0, entryHeaderSize+len(payload))
	data = append(data, entryMagic[:]...)
	data = append(data, k[:]...)
	data = binary.BigEndian.AppendUint64(data, uint64(len(payload)))
	data = append(data, sum[:]...)
	data = append(data, payload...)
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	c.evictOnce.Do(c.evict)
	f, err := os.CreateTemp(c.dir, tmpPrefix+"*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), c.path(k)) != nil {
		os.Remove(f.Name())
	}
}

// putAsync is put in a goroutine of its own, so that a run writes its
// entries while it goes on with its work; wait waits for them.
func (c *cache) putAsync(k cacheKey, fields ...[]byte) {
	if c == nil {
		return
	}
	c.writes.Go(func() { c.put(k, fields...) })
}

// wait waits for the writes putAsync started.
func (c *cache) wait() {
	if c != nil {
		c.writes.Wait()
	}
}

// evict removes entries, least recently used first, until the directory
// holds at most three quarters of c.max when it holds more than c.max,
// and temporary files older than an hour (left by a run that was killed).
// Only files named as entries and temporary files are touched: the
// directory may be shared.
func (c *cache) evict() {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	now := c.now()
	for _, de := range des {
		name := de.Name()
		isTmp := strings.HasPrefix(name, tmpPrefix)
		if !isTmp && !isEntryName(name) {
			continue
		}
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if isTmp {
			if now.Sub(info.ModTime()) > time.Hour {
				os.Remove(filepath.Join(c.dir, name))
			}
			continue
		}
		files = append(files, file{name, info.Size(), info.ModTime()})
		total += info.Size()
	}
	if total <= c.max {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for _, f := range files {
		if total <= c.max*3/4 {
			break
		}
		if err := os.Remove(filepath.Join(c.dir, f.name)); err == nil || errors.Is(err, os.ErrNotExist) {
			total -= f.size
		}
	}
}

// isEntryName reports whether name is an entry file's.
func isEntryName(name string) bool {
	h, ok := strings.CutSuffix(name, entrySuffix)
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
