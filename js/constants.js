// SQLite's numbers that the JS side uses (result codes, open and prepare
// flags, column types), named once here (values from sqlite3.h), and the
// layout of the OPFS pool's file header.  The VFS bridge
// (wasm/browser/opfs_library.js) gets them from here at start-up and
// checks its result codes against C's.

// Result codes.
export const SQLITE_OK = 0;
export const SQLITE_ERROR = 1;
export const SQLITE_ABORT = 4;
export const SQLITE_BUSY = 5;
export const SQLITE_NOMEM = 7;
export const SQLITE_READONLY = 8;
export const SQLITE_INTERRUPT = 9;
export const SQLITE_IOERR = 10;
export const SQLITE_CORRUPT = 11;
export const SQLITE_NOTFOUND = 12;
export const SQLITE_FULL = 13;
export const SQLITE_CANTOPEN = 14;
export const SQLITE_CONSTRAINT = 19;
export const SQLITE_MISUSE = 21;
export const SQLITE_RANGE = 25;
export const SQLITE_NOTADB = 26;
export const SQLITE_ROW = 100;
export const SQLITE_DONE = 101;

// Extended I/O error codes (what the VFS returns).
export const SQLITE_IOERR_READ = SQLITE_IOERR | (1 << 8);
export const SQLITE_IOERR_SHORT_READ = SQLITE_IOERR | (2 << 8);
export const SQLITE_IOERR_WRITE = SQLITE_IOERR | (3 << 8);
export const SQLITE_IOERR_FSYNC = SQLITE_IOERR | (4 << 8);
export const SQLITE_IOERR_TRUNCATE = SQLITE_IOERR | (6 << 8);
export const SQLITE_IOERR_FSTAT = SQLITE_IOERR | (7 << 8);
export const SQLITE_IOERR_DELETE = SQLITE_IOERR | (10 << 8);
export const SQLITE_IOERR_ACCESS = SQLITE_IOERR | (13 << 8);
export const SQLITE_IOERR_CLOSE = SQLITE_IOERR | (16 << 8);
export const SQLITE_IOERR_DELETE_NOENT = SQLITE_IOERR | (23 << 8);
export const SQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT | (8 << 8);
export const SQLITE_ABORT_ROLLBACK = SQLITE_ABORT | (2 << 8);

// sqlite3_open_v2() / xOpen flags.
export const SQLITE_OPEN_READONLY = 0x1;
export const SQLITE_OPEN_READWRITE = 0x2;
export const SQLITE_OPEN_CREATE = 0x4;
export const SQLITE_OPEN_DELETEONCLOSE = 0x8;
export const SQLITE_OPEN_MAIN_DB = 0x100;
export const SQLITE_OPEN_TEMP_DB = 0x200;
export const SQLITE_OPEN_TRANSIENT_DB = 0x400;
export const SQLITE_OPEN_MAIN_JOURNAL = 0x800;
export const SQLITE_OPEN_TEMP_JOURNAL = 0x1000;
export const SQLITE_OPEN_SUBJOURNAL = 0x2000;
export const SQLITE_OPEN_SUPER_JOURNAL = 0x4000;
export const SQLITE_OPEN_WAL = 0x80000;
export const SQLITE_OPEN_EXRESCODE = 0x02000000;

// sqlite3_prepare_v3() flags.
export const SQLITE_PREPARE_PERSISTENT = 0x01;

// Column types (sqlite3_column_type).
export const SQLITE_INTEGER = 1;
export const SQLITE_FLOAT = 2;
export const SQLITE_TEXT = 3;
export const SQLITE_BLOB = 4;

// sqlite3_create_function_v2() flags.
export const SQLITE_DETERMINISTIC = 0x800;
export const SQLITE_DIRECTONLY = 0x80000;

// Destructor argument: SQLite copies the value.
export const SQLITE_TRANSIENT = -1;

// The OPFS pool's file header (js/opfs-pool.js): POOL_HEADER_SIZE bytes at
// the start of every pool file, little-endian u32 fields at these offsets,
// then the path's UTF-8 bytes; the SQLite file's bytes follow the header.
export const POOL_HEADER_SIZE = 4096;
export const POOL_MAGIC = 0x31504354;   // 'TCP1'
export const POOL_OFFSET_MAGIC = 0;
export const POOL_OFFSET_FLAGS = 4;
export const POOL_OFFSET_PATH_LENGTH = 8;
export const POOL_OFFSET_CHECKSUM = 12;
export const POOL_OFFSET_PATH = 16;
