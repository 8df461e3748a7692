package sqlite

import (
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The writer's WAL gathers a commit's writes into one.
//
// SQLite writes a commit to the WAL as two write calls per page — the
// frame's 24-byte header, then the page — and then syncs. Under load a
// commit is some 30 pages, and on a virtual machine every system call
// costs microseconds: about a tenth of the server's CPU per chat went to
// these writes (docs/benchmarks.md). So the writer's connection opens the
// database through walVFS: SQLite's default VFS, except that a WAL file
// keeps consecutive writes in memory and hands them to the kernel in one
// call before anything that could observe them — a sync, a read, a
// truncation, asking the size, a file control, closing — and as soon as
// a write does not continue the last one or the gathered bytes would
// pass walBufferMax. What SQLite sees through the file is unchanged, and
// so is durability: SQLite counts on nothing being on disk before it
// syncs, and every sync first writes what was gathered.
//
// This is a VFS shim, as one would write in C, on the C-level API that
// modernc.org/sqlite's driver is built on (modernc.org/sqlite/lib): the
// default VFS's methods are called through their function pointers, and
// walVFS's own are Go functions handed to SQLite the way the translated
// C code hands it its own. Every structure and buffer SQLite gets an
// address of lives in SQLite's heap, not Go's.

// walVFSName is the VFS the writer's connection names in its DSN.
const walVFSName = "parley-wal"

// walBufferMax bounds what a WAL file gathers: a larger transaction (a
// migration, a big import) is written every walBufferMax bytes.
const walBufferMax = 1 << 20

// walWriteMax is the most the default VFS writes in one call: the unix
// VFS keeps only the low 17 bits of a write's length.
const walWriteMax = 1<<17 - 1

// walFile is what one open WAL file has gathered: n bytes at buf, to be
// written at off. One connection uses a file at a time.
type walFile struct {
	orig *sqlite3.Tsqlite3_io_methods // the default VFS's methods for the file
	off  int64
	buf  uintptr // in SQLite's heap, walBufferMax bytes once the first write came
	n    int
}

var walVFS struct {
	once sync.Once
	err  error
	base *sqlite3.Tsqlite3_vfs // SQLite's default VFS

	mu      sync.Mutex
	methods map[uintptr]uintptr  // the default VFS's io methods → walVFS's, for WAL files
	files   map[uintptr]*walFile // open WAL files, by their sqlite3_file

	// Counted for the tests: the writes SQLite asked for, and the calls
	// that reached the default VFS.
	asked, wrote atomic.Int64
}

// registerWALVFS registers walVFS with SQLite, once.
func registerWALVFS() error {
	walVFS.once.Do(func() {
		tls := libc.NewTLS()
		defer tls.Close()
		base := sqlite3.Xsqlite3_vfs_find(tls, 0)
		if base == 0 {
			walVFS.err = errors.New("sqlite: no default VFS")
			return
		}
		walVFS.base = (*sqlite3.Tsqlite3_vfs)(cptr(base))
		walVFS.methods = make(map[uintptr]uintptr)
		walVFS.files = make(map[uintptr]*walFile)

		// Both stay allocated for as long as the process runs: SQLite
		// keeps a registered VFS's address.
		name := sqliteAlloc(tls, len(walVFSName)+1)
		vfs := sqliteAlloc(tls, int(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})))
		if name == 0 || vfs == 0 {
			walVFS.err = errors.New("sqlite: out of memory")
			return
		}
		copy(cbytes(name, len(walVFSName)+1), walVFSName+"\x00")
		v := (*sqlite3.Tsqlite3_vfs)(cptr(vfs))
		*v = *walVFS.base
		v.FpNext = 0
		v.FzName = name
		v.FxOpen = cfunc(walOpen)
		if rc := sqlite3.Xsqlite3_vfs_register(tls, vfs, 0); rc != sqlite3.SQLITE_OK {
			walVFS.err = errors.New("sqlite: cannot register the WAL VFS")
		}
	})
	return walVFS.err
}

// walOpen opens a file with the default VFS; a WAL file gets walVFS's
// methods on top of the default's.
func walOpen(tls *libc.TLS, _, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	base := walVFS.base
	rc := callOpen(base.FxOpen, tls, uintptr(unsafe.Pointer(base)), zName, pFile, flags, pOutFlags)
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 {
		return rc
	}
	f := (*sqlite3.Tsqlite3_file)(cptr(pFile))
	if f.FpMethods == 0 {
		return rc
	}
	walVFS.mu.Lock()
	defer walVFS.mu.Unlock()
	m := walVFS.methods[f.FpMethods]
	if m == 0 {
		if m = sqliteAlloc(tls, int(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{}))); m == 0 {
			callClose((*sqlite3.Tsqlite3_io_methods)(cptr(f.FpMethods)).FxClose, tls, pFile)
			return sqlite3.SQLITE_NOMEM
		}
		wm := (*sqlite3.Tsqlite3_io_methods)(cptr(m))
		*wm = *(*sqlite3.Tsqlite3_io_methods)(cptr(f.FpMethods))
		wm.FxClose = cfunc(walClose)
		wm.FxRead = cfunc(walRead)
		wm.FxWrite = cfunc(walWrite)
		wm.FxTruncate = cfunc(walTruncate)
		wm.FxSync = cfunc(walSync)
		wm.FxFileSize = cfunc(walFileSize)
		wm.FxFileControl = cfunc(walFileControl)
		walVFS.methods[f.FpMethods] = m
	}
	walVFS.files[pFile] = &walFile{orig: (*sqlite3.Tsqlite3_io_methods)(cptr(f.FpMethods))}
	f.FpMethods = m
	return rc
}

func walFileOf(pFile uintptr) *walFile {
	walVFS.mu.Lock()
	w := walVFS.files[pFile]
	walVFS.mu.Unlock()
	return w
}

// flush writes what w gathered, in as few calls as the default VFS takes.
func (w *walFile) flush(tls *libc.TLS, pFile uintptr) int32 {
	p, n, off := w.buf, w.n, w.off
	w.n = 0
	for n > 0 {
		k := min(n, walWriteMax)
		walVFS.wrote.Add(1)
		if rc := callRW(w.orig.FxWrite, tls, pFile, p, int32(k), off); rc != sqlite3.SQLITE_OK {
			return rc
		}
		p, n, off = p+uintptr(k), n-k, off+int64(k)
	}
	return sqlite3.SQLITE_OK
}

func walWrite(tls *libc.TLS, pFile, pBuf uintptr, amt int32, off int64) int32 {
	walVFS.asked.Add(1)
	w := walFileOf(pFile)
	if w.n > 0 && (off != w.off+int64(w.n) || w.n+int(amt) > walBufferMax) {
		if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if w.buf == 0 {
		w.buf = sqliteAlloc(tls, walBufferMax)
	}
	if w.buf == 0 || int(amt) > walBufferMax {
		walVFS.wrote.Add(1)
		return callRW(w.orig.FxWrite, tls, pFile, pBuf, amt, off)
	}
	if w.n == 0 {
		w.off = off
	}
	copy(cbytes(w.buf+uintptr(w.n), int(amt)), cbytes(pBuf, int(amt)))
	w.n += int(amt)
	return sqlite3.SQLITE_OK
}

func walRead(tls *libc.TLS, pFile, pBuf uintptr, amt int32, off int64) int32 {
	w := walFileOf(pFile)
	if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callRW(w.orig.FxRead, tls, pFile, pBuf, amt, off)
}

func walTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	w := walFileOf(pFile)
	if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callI64(w.orig.FxTruncate, tls, pFile, size)
}

func walSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	w := walFileOf(pFile)
	if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callI32(w.orig.FxSync, tls, pFile, flags)
}

func walFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	w := walFileOf(pFile)
	if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callPtr(w.orig.FxFileSize, tls, pFile, pSize)
}

func walFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	w := walFileOf(pFile)
	if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callI32Ptr(w.orig.FxFileControl, tls, pFile, op, pArg)
}

// walClose writes what was gathered and closes the file. A failed write
// is reported, as the default VFS reports a failed close.
func walClose(tls *libc.TLS, pFile uintptr) int32 {
	w := walFileOf(pFile)
	rc := w.flush(tls, pFile)
	if crc := callClose(w.orig.FxClose, tls, pFile); rc == sqlite3.SQLITE_OK {
		rc = crc
	}
	if w.buf != 0 {
		sqlite3.Xsqlite3_free(tls, w.buf)
	}
	walVFS.mu.Lock()
	delete(walVFS.files, pFile)
	walVFS.mu.Unlock()
	return rc
}

// sqliteAlloc allocates n bytes in SQLite's heap (0 if it cannot).
func sqliteAlloc(tls *libc.TLS, n int) uintptr {
	return sqlite3.Xsqlite3_malloc64(tls, uint64(n))
}

// cfunc is a Go function as SQLite's translated C code holds a function
// pointer: the function value's data word.
func cfunc(f any) uintptr { return (*[2]uintptr)(unsafe.Pointer(&f))[1] }

// cptr is an address SQLite passed as an integer, as a pointer.
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// cbytes is n bytes of SQLite's memory at p.
func cbytes(p uintptr, n int) []byte { return unsafe.Slice((*byte)(cptr(p)), n) }

// The calls into the default VFS's methods, by their C signatures.

func callOpen(fp uintptr, tls *libc.TLS, vfs, name, file uintptr, flags int32, outFlags uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&fp)))(tls, vfs, name, file, flags, outFlags)
}

func callRW(fp uintptr, tls *libc.TLS, file, buf uintptr, amt int32, off int64) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&fp)))(tls, file, buf, amt, off)
}

func callI64(fp uintptr, tls *libc.TLS, file uintptr, v int64) int32 {
	return (*(*func(*libc.TLS, uintptr, int64) int32)(unsafe.Pointer(&fp)))(tls, file, v)
}

func callI32(fp uintptr, tls *libc.TLS, file uintptr, v int32) int32 {
	return (*(*func(*libc.TLS, uintptr, int32) int32)(unsafe.Pointer(&fp)))(tls, file, v)
}

func callPtr(fp uintptr, tls *libc.TLS, file, p uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr) int32)(unsafe.Pointer(&fp)))(tls, file, p)
}

func callI32Ptr(fp uintptr, tls *libc.TLS, file uintptr, v int32, p uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, int32, uintptr) int32)(unsafe.Pointer(&fp)))(tls, file, v, p)
}

func callClose(fp uintptr, tls *libc.TLS, file uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&fp)))(tls, file)
}
