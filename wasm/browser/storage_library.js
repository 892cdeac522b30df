/*
 * The storage bridge of the "storage" VFS (an emscripten --js-library).
 *
 * The C VFS (storage_vfs.c) calls the storage_js_* functions below.  Each
 * one re-reads HEAPU8 (memory may have grown since the last call), hands a
 * typed call to the storage backend given to STORAGE.init() (the contract
 * is js/storage/backend.d.ts), and turns an exception into an SQLite result code
 * with the engine's codeOf(e, dflt) (js/shared/errors.js: storageCode): the code
 * the error carries, SQLITE_FULL for a quota error, else dflt, the
 * SQLITE_IOERR_* code of the method.
 *
 * The exception itself is kept as the instance's pending failure until the
 * engine takes it for the SQLite error it caused (takeFailure) or the next
 * failure replaces it; xGetLastError reads it.
 *
 * The bridge keeps nothing per file but fileId -> the backend's handle;
 * name, open flags and temp-ness are the handle's.  STORAGE.observer, when
 * set, sees every call with the file's name, open flags and kind, and for
 * writes the very bytes on their way to storage.
 */
mergeInto(LibraryManager.library, {
  $STORAGE__postset: "Module['storage'] = STORAGE; STORAGE.files = new Map();",
  $STORAGE: {
    // The kind of file SQLite asked for, by open flag (first match wins).
    KINDS: [
      ['SQLITE_OPEN_MAIN_DB', 'main-db'], ['SQLITE_OPEN_TEMP_DB', 'temp-db'],
      ['SQLITE_OPEN_TRANSIENT_DB', 'transient-db'], ['SQLITE_OPEN_MAIN_JOURNAL', 'main-journal'],
      ['SQLITE_OPEN_TEMP_JOURNAL', 'temp-journal'], ['SQLITE_OPEN_SUBJOURNAL', 'subjournal'],
      ['SQLITE_OPEN_SUPER_JOURNAL', 'super-journal'], ['SQLITE_OPEN_WAL', 'wal'],
    ],
    C: null,              // js/shared/constants.js, from init()
    codeOf: null,         // (error, default code) -> result code, from init()
    backend: null,
    observer: null,
    files: null,          // Map: fileId -> backend handle
    failure: null,        // { error, code }: the last exception, not yet taken

    // backend: the storage backend; C: SQLite's numbers (js/shared/constants.js);
    // codeOf: the mapping of a backend's exception to a result code.
    init: function(backend, C, codeOf) {
      STORAGE.backend = backend;
      STORAGE.C = C;
      STORAGE.codeOf = codeOf;
    },

    setObserver: function(fn) { STORAGE.observer = fn || null; },

    // The pending failure if it caused an error of this primary code, else
    // null; either way none is pending afterwards.
    takeFailure: function(code) {
      var f = STORAGE.failure;
      STORAGE.failure = null;
      return f && (f.code & 0xff) === (code & 0xff) ? f.error : null;
    },

    kindOf: function(flags) {
      for (var i = 0; i < STORAGE.KINDS.length; i++) {
        if (flags & STORAGE.C[STORAGE.KINDS[i][0]]) return STORAGE.KINDS[i][1];
      }
      return 'other';
    },

    // Keep e as the pending failure; returns the code the C side gets
    // (fixed: for a method whose C side returns its own code).
    fail: function(e, dflt, fixed) {
      var code = fixed ? dflt : STORAGE.codeOf(e, dflt);
      STORAGE.failure = { error: e, code: code };
      return code;
    },

    notify: function(ev) {
      if (!STORAGE.observer) return;
      try { STORAGE.observer(ev); } catch (e) { /* an observer never breaks I/O */ }
    },

    event: function(op, h, fileId) {
      return { op: op, fileId: fileId, name: h.name, flags: h.flags, kind: STORAGE.kindOf(h.flags), temp: h.temp };
    },

    // The full path name of a database name, as the backend has it
    // (xFullPathname: real paths for storage 'file'), else the name
    // under "/".  SQLite gets it through xFullPathname; the engine uses
    // it for the files it opens itself (an import's staging file).
    fullPathname: function(name) {
      var b = STORAGE.backend;
      if (typeof b.xFullPathname === 'function') return b.xFullPathname(name);
      return name.charAt(0) === '/' ? name : '/' + name;
    },
  },

  // The full path name (see STORAGE.fullPathname) into zOut as UTF-8 (as
  // TextEncoder encodes it), or SQLITE_CANTOPEN when it does not fit:
  // a name is never cut into another file's name.
  storage_js_full_pathname__deps: ['$STORAGE'],
  storage_js_full_pathname: function(zName, nOut, zOut) {
    try {
      var bytes = new TextEncoder().encode(STORAGE.fullPathname(UTF8ToString(zName)));
      if (bytes.length + 1 > nOut) throw new Error('path name too long (' + bytes.length + ' bytes; at most ' + (nOut - 1) + ')');
      HEAPU8.set(bytes, zOut);
      HEAPU8[zOut + bytes.length] = 0;
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_CANTOPEN);
    }
  },

  storage_js_open__deps: ['$STORAGE'],
  storage_js_open: function(zName, fileId, flags, pOutFlags) {
    var name = zName ? UTF8ToString(zName) : null;
    try {
      var h = STORAGE.backend.xOpen(name, flags);
      STORAGE.files.set(fileId, h);
      // A file the backend could open read-only only: SQLite treats it so.
      var C = STORAGE.C;
      if (pOutFlags) HEAP32[pOutFlags >> 2] = h.readOnly ? (flags & ~(C.SQLITE_OPEN_READWRITE | C.SQLITE_OPEN_CREATE)) | C.SQLITE_OPEN_READONLY : flags;
      STORAGE.notify(STORAGE.event('open', h, fileId));
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_CANTOPEN);
    }
  },

  storage_js_close__deps: ['$STORAGE'],
  storage_js_close: function(fileId) {
    var h = STORAGE.files.get(fileId);
    if (!h) return 0;
    STORAGE.files.delete(fileId);
    try {
      STORAGE.backend.xClose(h);
      STORAGE.notify(STORAGE.event('close', h, fileId));
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_CLOSE);
    }
  },

  storage_js_read__deps: ['$STORAGE'],
  storage_js_read: function(fileId, pBuf, iAmt, iOfst) {
    var h = STORAGE.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      var n = STORAGE.backend.xRead(h, buf, iOfst);
      // Zero the tail and pick the result before the observer runs: one
      // that grows memory detaches buf.
      var rc = 0;
      if (n < iAmt) {
        buf.fill(0, n);
        rc = STORAGE.C.SQLITE_IOERR_SHORT_READ;
      }
      if (STORAGE.observer) {
        var ev = STORAGE.event('read', h, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.got = n;
        STORAGE.notify(ev);
      }
      return rc;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_READ);
    }
  },

  storage_js_write__deps: ['$STORAGE'],
  storage_js_write: function(fileId, pBuf, iAmt, iOfst) {
    var h = STORAGE.files.get(fileId);
    try {
      var buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      if (STORAGE.observer) {
        var ev = STORAGE.event('write', h, fileId);
        ev.offset = iOfst; ev.length = iAmt; ev.data = buf;
        STORAGE.notify(ev);
        buf = HEAPU8.subarray(pBuf, pBuf + iAmt);
      }
      STORAGE.backend.xWrite(h, buf, iOfst);
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_WRITE);
    }
  },

  storage_js_truncate__deps: ['$STORAGE'],
  storage_js_truncate: function(fileId, size) {
    var h = STORAGE.files.get(fileId);
    try {
      STORAGE.backend.xTruncate(h, size);
      if (STORAGE.observer) { var ev = STORAGE.event('truncate', h, fileId); ev.size = size; STORAGE.notify(ev); }
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_TRUNCATE);
    }
  },

  storage_js_sync__deps: ['$STORAGE'],
  storage_js_sync: function(fileId, flags) {
    var h = STORAGE.files.get(fileId);
    try {
      STORAGE.backend.xSync(h, flags);
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_FSYNC);
    }
  },

  storage_js_size__deps: ['$STORAGE'],
  storage_js_size: function(fileId) {
    var h = STORAGE.files.get(fileId);
    try {
      return STORAGE.backend.xSize(h);
    } catch (e) {
      STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_FSTAT, true);
      return -1;
    }
  },

  storage_js_delete__deps: ['$STORAGE'],
  storage_js_delete: function(zName, syncDir) {
    var name = UTF8ToString(zName);
    try {
      var existed = STORAGE.backend.xDelete(name);
      STORAGE.notify({ op: 'delete', name: name });
      return existed === false ? STORAGE.C.SQLITE_IOERR_DELETE_NOENT : 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_DELETE);
    }
  },

  storage_js_access__deps: ['$STORAGE'],
  storage_js_access: function(zName, flags) {
    try {
      return STORAGE.backend.xAccess(UTF8ToString(zName), flags) ? 1 : 0;
    } catch (e) {
      STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_ACCESS, true);
      return -1;
    }
  },

  // The message as TextEncoder encodes it (as every string the engine
  // hands SQLite, js/engine/values.js), cut at a character to fit with its NUL.
  storage_js_last_error__deps: ['$STORAGE'],
  storage_js_last_error: function(zBuf, nBuf) {
    var f = STORAGE.failure;
    if (nBuf > 0) {
      var msg = f ? String(f.error && f.error.message || f.error) : '';
      var n = new TextEncoder().encodeInto(msg, HEAPU8.subarray(zBuf, zBuf + nBuf - 1)).written;
      HEAPU8[zBuf + n] = 0;
    }
    return f ? 1 : 0;
  },

  storage_js_random: function(pBuf, n) {
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
  getentropy__deps: ['storage_js_random'],
  getentropy: function(pBuf, n) {
    return _storage_js_random(pBuf, n) === 0 ? 0 : -1;
  },

  storage_js_now: function() {
    return Date.now();
  },

  // Locks and sleep, for a backend that keeps locks other processes see
  // (xLock and the rest are optional in the contract).
  storage_js_lock__deps: ['$STORAGE'],
  storage_js_lock: function(fileId, eLock) {
    if (!STORAGE.backend.xLock) return -1;
    try {
      return STORAGE.backend.xLock(STORAGE.files.get(fileId), eLock) ? 0 : STORAGE.C.SQLITE_BUSY;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_LOCK);
    }
  },

  storage_js_unlock__deps: ['$STORAGE'],
  storage_js_unlock: function(fileId, eLock) {
    try {
      STORAGE.backend.xUnlock(STORAGE.files.get(fileId), eLock);
      return 0;
    } catch (e) {
      return STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_UNLOCK);
    }
  },

  storage_js_check_reserved__deps: ['$STORAGE'],
  storage_js_check_reserved: function(fileId) {
    try {
      return STORAGE.backend.xCheckReservedLock(STORAGE.files.get(fileId)) ? 1 : 0;
    } catch (e) {
      STORAGE.fail(e, STORAGE.C.SQLITE_IOERR_CHECKRESERVEDLOCK);
      return -1;
    }
  },

  storage_js_sleep__deps: ['$STORAGE'],
  storage_js_sleep: function(us) {
    if (STORAGE.backend && STORAGE.backend.xSleep) STORAGE.backend.xSleep(us);
    return us;
  },
});
