/*
 * JS bridge of the "opfs" VFS (an emscripten --js-library).
 *
 * The C VFS (opfs_vfs.c) calls the opfs_js_* functions below.  Each one
 * re-reads HEAPU8 (memory may have grown since the last call), hands a typed
 * call to the storage backend installed with OPFS.setBackend() (an OPFS
 * access-handle pool or plain memory, see js/), and turns any exception
 * into an SQLite result code: QuotaExceededError -> SQLITE_FULL, an error
 * carrying .sqliteCode -> that code, anything else -> the SQLITE_IOERR_*
 * code of the method.  The exception is kept for xGetLastError and for the
 * JS API, which appends it to the SQLite error message.
 *
 * OPFS.observer, when set, sees every call with the file's name, open flags
 * and kind, and for writes the very bytes on their way to storage.
 */
mergeInto(LibraryManager.library, {
  $OPFS__postset: "Module['opfs'] = OPFS; " +
    "OPFS.files = new Map(); OPFS.RESULT_CODES.forEach(function(p) { OPFS.rc[p[0]] = p[1]; });",
  $OPFS: {
    // Kept in lockstep with OPFS_RESULT_CODES in opfs_vfs.h (same names,
    // same order); Module.opfs.checkCodes() compares both at start-up.
    RESULT_CODES: [
      ['SQLITE_OK', 0], ['SQLITE_ERROR', 1], ['SQLITE_BUSY', 5],
      ['SQLITE_NOMEM', 7], ['SQLITE_FULL', 13], ['SQLITE_CANTOPEN', 14],
      ['SQLITE_NOTFOUND', 12], ['SQLITE_READONLY', 8], ['SQLITE_IOERR', 10],
      ['SQLITE_IOERR_READ', 266], ['SQLITE_IOERR_SHORT_READ', 522],
      ['SQLITE_IOERR_WRITE', 778], ['SQLITE_IOERR_FSYNC', 1034],
      ['SQLITE_IOERR_TRUNCATE', 1546], ['SQLITE_IOERR_FSTAT', 1802],
      ['SQLITE_IOERR_DELETE', 2570], ['SQLITE_IOERR_ACCESS', 3338],
      ['SQLITE_IOERR_CLOSE', 4106], ['SQLITE_IOERR_DELETE_NOENT', 5898],
    ],
    rc: {},
    backend: null,
    observer: null,
    files: null,          // Map: fileId -> { handle, name, flags, kind, temp }
    lastError: null,
    nextTemp: 0,

    setBackend: function(b) { OPFS.backend = b; },
    setObserver: function(fn) { OPFS.observer = fn || null; },

    // Compare the JS table with the C enum; throws on any difference.
    checkCodes: function(nC, codeAt) {
      if (nC !== OPFS.RESULT_CODES.length) throw new Error('opfs: result code table size differs between C and JS');
      for (var i = 0; i < nC; i++) {
        if (codeAt(i) !== OPFS.RESULT_CODES[i][1]) throw new Error('opfs: result code ' + OPFS.RESULT_CODES[i][0] + ' differs between C and JS');
      }
    },

    // The kind of file SQLite asked for, from its open flags.
    kindOf: function(flags) {
      if (flags & 0x100) return 'main-db';
      if (flags & 0x200) return 'temp-db';
      if (flags & 0x400) return 'transient-db';
      if (flags & 0x800) return 'main-journal';
      if (flags & 0x1000) return 'temp-journal';
      if (flags & 0x2000) return 'subjournal';
      if (flags & 0x4000) return 'super-journal';
      if (flags & 0x80000) return 'wal';
      return 'other';
    },

    fail: function(e, dflt) {
      OPFS.lastError = e;
      if (e && typeof e.sqliteCode === 'number') return e.sqliteCode;
      if (e && e.name === 'QuotaExceededError') return OPFS.rc.SQLITE_FULL;
      return dflt;
    },

    notify: function(ev) {
      if (!OPFS.observer) return;
      try { OPFS.observer(ev); } catch (e) { /* an observer never breaks I/O */ }
    },

    event: function(op, f, fileId) {
      return { op: op, fileId: fileId, name: f.name, flags: f.flags, kind: f.kind, temp: f.temp };
    },
  },

  opfs_js_open__deps: ['$OPFS'],
  opfs_js_open: function(zName, fileId, flags, pOutFlags) {
    var name = zName ? UTF8ToString(zName) : null;
    try {
      var handle = OPFS.backend.xOpen(name, flags);
      var f = { handle: handle, name: name !== null ? name : (handle && handle.name) || ('(temp ' + (++OPFS.nextTemp) + ')'),
                flags: flags, kind: OPFS.kindOf(flags), temp: name === null };
      OPFS.files.set(fileId, f);
      if (pOutFlags) HEAP32[pOutFlags >> 2] = flags;
      OPFS.notify(OPFS.event('open', f, fileId));
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_CANTOPEN);
    }
  },

  opfs_js_close__deps: ['$OPFS'],
  opfs_js_close: function(fileId) {
    var f = OPFS.files.get(fileId);
    if (!f) return 0;
    OPFS.files.delete(fileId);
    try {
      OPFS.backend.xClose(f.handle);
      OPFS.notify(OPFS.event('close', f, fileId));
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_CLOSE);
    }
  },

  opfs_js_read__deps: ['$OPFS'],
  opfs_js_read: function(fileId, pBuf, iAmt, iOfst) {
    var f = OPFS.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      var n = OPFS.backend.xRead(f.handle, buf, iOfst);
      // Zero the tail and pick the result before the observer runs: one
      // that grows memory detaches buf.
      var rc = 0;
      if (n < iAmt) {
        buf.fill(0, n);
        rc = OPFS.rc.SQLITE_IOERR_SHORT_READ;
      }
      if (OPFS.observer) {
        var ev = OPFS.event('read', f, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.got = n;
        OPFS.notify(ev);
      }
      return rc;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_READ);
    }
  },

  opfs_js_write__deps: ['$OPFS'],
  opfs_js_write: function(fileId, pBuf, iAmt, iOfst) {
    var f = OPFS.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      if (OPFS.observer) {
        var ev = OPFS.event('write', f, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.data = buf;
        OPFS.notify(ev);
        buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      }
      OPFS.backend.xWrite(f.handle, buf, iOfst);
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_WRITE);
    }
  },

  opfs_js_truncate__deps: ['$OPFS'],
  opfs_js_truncate: function(fileId, size) {
    var f = OPFS.files.get(fileId);
    try {
      OPFS.backend.xTruncate(f.handle, size);
      if (OPFS.observer) { var ev = OPFS.event('truncate', f, fileId); ev.size = size; OPFS.notify(ev); }
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_TRUNCATE);
    }
  },

  opfs_js_sync__deps: ['$OPFS'],
  opfs_js_sync: function(fileId, flags) {
    var f = OPFS.files.get(fileId);
    try {
      OPFS.backend.xSync(f.handle, flags);
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_FSYNC);
    }
  },

  opfs_js_size__deps: ['$OPFS'],
  opfs_js_size: function(fileId) {
    var f = OPFS.files.get(fileId);
    try {
      return OPFS.backend.xSize(f.handle);
    } catch (e) {
      OPFS.fail(e, 0);
      return -1;
    }
  },

  opfs_js_delete__deps: ['$OPFS'],
  opfs_js_delete: function(zName, syncDir) {
    var name = UTF8ToString(zName);
    try {
      var existed = OPFS.backend.xDelete(name);
      OPFS.notify({ op: 'delete', name: name });
      return existed === false ? OPFS.rc.SQLITE_IOERR_DELETE_NOENT : 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.rc.SQLITE_IOERR_DELETE);
    }
  },

  opfs_js_access__deps: ['$OPFS'],
  opfs_js_access: function(zName, flags) {
    try {
      return OPFS.backend.xAccess(UTF8ToString(zName), flags) ? 1 : 0;
    } catch (e) {
      OPFS.fail(e, 0);
      return -1;
    }
  },

  opfs_js_last_error__deps: ['$OPFS'],
  opfs_js_last_error: function(zBuf, nBuf) {
    var e = OPFS.lastError;
    if (nBuf > 0) stringToUTF8(e ? String(e && e.message || e) : '', zBuf, nBuf);
    return e ? 1 : 0;
  },

  opfs_js_random: function(pBuf, n) {
    try {
      for (var i = 0; i < n; i += 65536) {
        crypto.getRandomValues(HEAPU8.subarray(pBuf + i, pBuf + Math.min(n, i + 65536)));
      }
      return 0;
    } catch (e) {
      return -1;
    }
  },

  // getentropy() for tempcrypt's keys: the Web Crypto CSPRNG, in one call
  // per 64 KiB; fails (returns -1) rather than ever falling back.
  getentropy__deps: ['opfs_js_random'],
  getentropy: function(pBuf, n) {
    return _opfs_js_random(pBuf, n) === 0 ? 0 : -1;
  },

  opfs_js_now: function() {
    return Date.now();
  },
});
