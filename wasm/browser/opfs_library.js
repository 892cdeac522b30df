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
 * The bridge keeps nothing per file but fileId -> the backend's handle;
 * name, open flags and temp-ness are the handle's (js/backend.d.ts).
 * OPFS.observer, when set, sees every call with the file's name, open flags
 * and kind, and for writes the very bytes on their way to storage.
 */
mergeInto(LibraryManager.library, {
  $OPFS__postset: "Module['opfs'] = OPFS; OPFS.files = new Map();",
  $OPFS: {
    // The result codes the VFS returns, by name: the same names in the same
    // order as OPFS_RESULT_CODES in opfs_vfs.h.  Their values come from
    // js/constants.js through init(), which compares them with C's.
    RESULT_NAMES: [
      'SQLITE_OK', 'SQLITE_ERROR', 'SQLITE_BUSY', 'SQLITE_NOMEM', 'SQLITE_FULL', 'SQLITE_CANTOPEN',
      'SQLITE_NOTFOUND', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_IOERR_READ', 'SQLITE_IOERR_SHORT_READ',
      'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_TRUNCATE', 'SQLITE_IOERR_FSTAT',
      'SQLITE_IOERR_DELETE', 'SQLITE_IOERR_ACCESS', 'SQLITE_IOERR_CLOSE', 'SQLITE_IOERR_DELETE_NOENT',
    ],
    // The kind of file SQLite asked for, by open flag (first match wins).
    KINDS: [
      ['SQLITE_OPEN_MAIN_DB', 'main-db'], ['SQLITE_OPEN_TEMP_DB', 'temp-db'],
      ['SQLITE_OPEN_TRANSIENT_DB', 'transient-db'], ['SQLITE_OPEN_MAIN_JOURNAL', 'main-journal'],
      ['SQLITE_OPEN_TEMP_JOURNAL', 'temp-journal'], ['SQLITE_OPEN_SUBJOURNAL', 'subjournal'],
      ['SQLITE_OPEN_SUPER_JOURNAL', 'super-journal'], ['SQLITE_OPEN_WAL', 'wal'],
    ],
    C: null,              // js/constants.js, from init()
    backend: null,
    observer: null,
    files: null,          // Map: fileId -> backend handle
    lastError: null,

    // Take SQLite's numbers from the constants module C (js/constants.js)
    // and check the result codes against the C enum (nC codes, codeAt(i));
    // throws on any difference.
    init: function(C, nC, codeAt) {
      var names = OPFS.RESULT_NAMES;
      if (nC !== names.length) throw new Error('opfs: result code table size differs between C and JS');
      for (var i = 0; i < nC; i++) {
        if (typeof C[names[i]] !== 'number' || codeAt(i) !== C[names[i]]) throw new Error('opfs: result code ' + names[i] + ' differs between C and JS');
      }
      OPFS.C = C;
    },

    setBackend: function(b) { OPFS.backend = b; },
    setObserver: function(fn) { OPFS.observer = fn || null; },

    kindOf: function(flags) {
      for (var i = 0; i < OPFS.KINDS.length; i++) {
        if (flags & OPFS.C[OPFS.KINDS[i][0]]) return OPFS.KINDS[i][1];
      }
      return 'other';
    },

    fail: function(e, dflt) {
      OPFS.lastError = e;
      if (e && typeof e.sqliteCode === 'number') return e.sqliteCode;
      if (e && e.name === 'QuotaExceededError') return OPFS.C.SQLITE_FULL;
      return dflt;
    },

    notify: function(ev) {
      if (!OPFS.observer) return;
      try { OPFS.observer(ev); } catch (e) { /* an observer never breaks I/O */ }
    },

    event: function(op, h, fileId) {
      return { op: op, fileId: fileId, name: h.name, flags: h.flags, kind: OPFS.kindOf(h.flags), temp: h.temp };
    },
  },

  opfs_js_open__deps: ['$OPFS'],
  opfs_js_open: function(zName, fileId, flags, pOutFlags) {
    var name = zName ? UTF8ToString(zName) : null;
    try {
      var h = OPFS.backend.xOpen(name, flags);
      OPFS.files.set(fileId, h);
      if (pOutFlags) HEAP32[pOutFlags >> 2] = flags;
      OPFS.notify(OPFS.event('open', h, fileId));
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_CANTOPEN);
    }
  },

  opfs_js_close__deps: ['$OPFS'],
  opfs_js_close: function(fileId) {
    var h = OPFS.files.get(fileId);
    if (!h) return 0;
    OPFS.files.delete(fileId);
    try {
      OPFS.backend.xClose(h);
      OPFS.notify(OPFS.event('close', h, fileId));
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_CLOSE);
    }
  },

  opfs_js_read__deps: ['$OPFS'],
  opfs_js_read: function(fileId, pBuf, iAmt, iOfst) {
    var h = OPFS.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      var n = OPFS.backend.xRead(h, buf, iOfst);
      // Zero the tail and pick the result before the observer runs: one
      // that grows memory detaches buf.
      var rc = 0;
      if (n < iAmt) {
        buf.fill(0, n);
        rc = OPFS.C.SQLITE_IOERR_SHORT_READ;
      }
      if (OPFS.observer) {
        var ev = OPFS.event('read', h, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.got = n;
        OPFS.notify(ev);
      }
      return rc;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_READ);
    }
  },

  opfs_js_write__deps: ['$OPFS'],
  opfs_js_write: function(fileId, pBuf, iAmt, iOfst) {
    var h = OPFS.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      if (OPFS.observer) {
        var ev = OPFS.event('write', h, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.data = buf;
        OPFS.notify(ev);
        buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      }
      OPFS.backend.xWrite(h, buf, iOfst);
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_WRITE);
    }
  },

  opfs_js_truncate__deps: ['$OPFS'],
  opfs_js_truncate: function(fileId, size) {
    var h = OPFS.files.get(fileId);
    try {
      OPFS.backend.xTruncate(h, size);
      if (OPFS.observer) { var ev = OPFS.event('truncate', h, fileId); ev.size = size; OPFS.notify(ev); }
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_TRUNCATE);
    }
  },

  opfs_js_sync__deps: ['$OPFS'],
  opfs_js_sync: function(fileId, flags) {
    var h = OPFS.files.get(fileId);
    try {
      OPFS.backend.xSync(h, flags);
      return 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_FSYNC);
    }
  },

  opfs_js_size__deps: ['$OPFS'],
  opfs_js_size: function(fileId) {
    var h = OPFS.files.get(fileId);
    try {
      return OPFS.backend.xSize(h);
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
      return existed === false ? OPFS.C.SQLITE_IOERR_DELETE_NOENT : 0;
    } catch (e) {
      return OPFS.fail(e, OPFS.C.SQLITE_IOERR_DELETE);
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
