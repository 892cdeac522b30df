// Compiled by tsc (never run): uses the hand-written declarations the way
// package users do, through the package's own exports map.
import {
  open, SqliteError, SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE, RESULT_CODE_NAMES, type Database, type Row, type TempcryptStats, type SqlValue,
  type BatchResult, type Transaction, type Storage, type PeerShapedSqliteError,
} from 'sqlite-tempcrypt';
import * as w from 'sqlite-tempcrypt/worker';
import { serve } from 'sqlite-tempcrypt/serve';
import { SqliteTempcryptDialect } from 'sqlite-tempcrypt/kysely';
import { Kysely } from 'kysely';

interface KyselyDB { person: { id: number; name: string } }
async function kysely(): Promise<void> {
  const k = new Kysely<KyselyDB>({ dialect: new SqliteTempcryptDialect({ database: () => open('k.db') }) });
  const names: { name: string }[] = await k.selectFrom('person').select('name').execute();
  // @ts-expect-error: no such column
  await k.selectFrom('person').select('age').execute();
  void names;
}
void kysely;

// Row types may be interfaces as well as type aliases; a column that is no
// SqlValue is an error.
interface Note { id: number; body: string; tag: string | null }
interface Dated { id: number; when: Date }
async function rowTypes(db: Database, sdb: w.SyncDatabase): Promise<void> {
  const notes: Note[] = await db.query<Note>('SELECT id, body, tag FROM notes');
  const st = await db.prepare<Note>('SELECT id, body, tag FROM notes WHERE id = ?');
  const one: Note | undefined = await st.get(1);
  const byArray: Note | undefined = await st.get([1], { timeoutMs: 100 });
  const many: Note[] = await st.all(1);
  for await (const n of st.iterate(1)) { const b: string = n.body; void b; }
  await st.run(1, 'a', null, new Uint8Array(1), 2n);
  const b: BatchResult<Note>[] = await db.batch<Note>(['SELECT 1']);
  const batchColumns: string[] = b[0].columns;
  void batchColumns;
  const sst: w.SyncStatement<Note> = sdb.prepare<Note>('SELECT id, body, tag FROM notes WHERE id = ?');
  const s1: Note | undefined = sst.get(1);
  const s2: Note[] = sdb.query<Note>('SELECT 1', [], { timeoutMs: 5 });
  for (const n of sdb.iterate<Note>('SELECT 1')) { const t: string | null = n.tag; void t; }
  // @ts-expect-error: a Date is not a column value
  await db.query<Dated>('SELECT 1');
  // @ts-expect-error: nor in the sync API
  sdb.prepare<Dated>('SELECT 1');
  // Per-call options, db.timeoutMs, error names and constants.
  await db.exec('INSERT INTO t VALUES (?)', [1], { timeoutMs: 50 });
  await db.run('INSERT INTO t VALUES (?)', [1], { timeoutMs: 50 });
  // @ts-expect-error: no such option
  await db.run('SELECT 1', [], { timeout: 50 });
  db.timeoutMs = 250;
  const ms: number = db.timeoutMs;
  try { await db.run('SELECT 1'); } catch (e) {
    if (e instanceof SqliteError && e.code === SQLITE_CONSTRAINT_UNIQUE) { const name: string = e.codeName; void name; }
  }
  const busy: 5 = SQLITE_BUSY;
  const named: string | undefined = RESULT_CODE_NAMES.get(2067);
  const wbusy: 5 = w.SQLITE_BUSY;
  void [notes, one, byArray, many, b, s1, s2, ms, busy, named, wbusy];
}
void rowTypes;

async function main(): Promise<void> {
  const db: Database = await open('app.db', { storage: 'opfs' });
  await db.exec('CREATE TABLE IF NOT EXISTS t(x)');
  const rows: Row[] = await db.query('SELECT x FROM t WHERE x > ?', [1n]);
  const typed = await db.query<{ x: number | bigint }>('SELECT x FROM t WHERE x = :x', { x: 2 });
  const x: number | bigint = typed[0].x;
  const { changes, lastInsertRowid } = await db.run('INSERT INTO t VALUES (?)', [new Uint8Array(2)]);
  const n: number = changes;
  const id: number | bigint = lastInsertRowid;
  const img: Uint8Array = await db.export();
  // rowMode and generic rows.
  const arr: [number, string][] = await db.query<[number, string]>('SELECT 1, ?', ['a'], { rowMode: 'array' });
  // @ts-expect-error: array rows are not objects
  const wrong: Row[] = await db.query('SELECT 1', [], { rowMode: 'array' });
  const st = await db.prepare<{ id: number; name: string }>('SELECT id, name FROM t WHERE id = ?');
  const one: { id: number; name: string } | undefined = await st.get([1]);
  const all: { id: number; name: string }[] = await st.all([1]);
  const raw1: SqlValue[] | undefined = await st.get([1], { rowMode: 'array' });
  for await (const r of st.iterate([1], { pageSize: 10 })) { const nm: string = r.name; void nm; }
  const cols: string[] = st.columns();
  await st.finalize();
  for await (const r of db.iterate<[number]>('SELECT 1', [], { rowMode: 'array' })) { const v: number = r[0]; void v; }
  const b: BatchResult[] = await db.batch([['INSERT INTO t VALUES (?)', [1]], 'SELECT 1']);
  const ch: number = b[0].changes;
  const total: number = await db.transaction(async (tx: Transaction) => {
    await tx.run('INSERT INTO t VALUES (1)');
    return tx.transaction(async (inner) => (await inner.query<{ n: number }>('SELECT 1 AS n'))[0].n);
  });
  await db.import(new Uint8Array(0));
  await db.import(new Blob([]));
  const stream: ReadableStream<Uint8Array> = db.exportStream({ pagesPerChunk: 16 });
  const used: Storage = db.storage;
  const heap: number = await db.heapSize();
  await open('b.db', { storage: 'auto', import: await fetch('/seed.db'), setup: new URL('./fns.js', 'https://x/'), timeoutMs: 1000, lockTimeoutMs: 0 });
  await open('d.db', { storage: 'file', dir: '/var/lib/app' });
  await open('g.db', { worker: () => new Worker(new URL('./db-worker.js', 'https://x/'), { type: 'module' }) });
  // @ts-expect-error: worker is a boolean, a Worker or a function returning one
  await open('h.db', { worker: 'db-worker.js' });
  serve({ setup: (sdb) => { sdb.function('twice', (x) => Number(x) * 2); } });
  serve();
  await open('e.db', { tabs: 'exclusive', busyTimeoutMs: Infinity });
  // @ts-expect-error: tabs is 'shared' or 'exclusive'
  await open('f.db', { tabs: 'all' });
  const mine: boolean = db.owner.self;
  const tab: string = db.tab;
  db.onownerchange = (owner) => { const id: string = owner.id; void id; };
  void [mine, tab];
  // @ts-expect-error: no such storage
  await open('c.db', { storage: 'disk' });
  const s: TempcryptStats = await db.tempcrypt.stats();
  const prev: boolean = await db.tempcrypt.setEnabled(false);
  await db.close();
  try { await open('m', { storage: 'memory' }); } catch (e) { if (e instanceof SqliteError) { const c: number = e.code; void c; } }
  const fromOrm = (e: unknown) => { const p = e as PeerShapedSqliteError; const name: string = p.code; const n: number = p.errcode; return p.codeName === name && p.primaryCode === (n & 0xff); };
  void fromOrm;

  const sdb: w.SyncDatabase = await w.open('app.db', { storage: 'memory', observer: (ev: w.StorageEvent) => { if (ev.op === 'write' && ev.temp) void ev.data?.length; } });
  const r2: w.Row[] = sdb.query('SELECT 1 AS one');
  const sst: w.SyncStatement<{ one: number }> = sdb.prepare<{ one: number }>('SELECT 1 AS one');
  const o: { one: number } | undefined = sst.get();
  const a2: SqlValue[][] = sst.all([], { rowMode: 'array' });
  for (const r of sst.iterate()) { const n2: number = r.one; void n2; }
  sst.finalize();
  sdb.function('twice', (x) => Number(x) * 2, { deterministic: true })
    .aggregate('product', { start: 1, step: (acc: number, x) => acc * Number(x) })
    .collation('rev', (a, b) => b.localeCompare(a));
  sdb.timeoutMs = 100;
  const t2: string = sdb.transaction((d) => { d.run('INSERT INTO t VALUES (1)'); return 'x'; });
  const sb: w.BatchResult[] = sdb.batch(['SELECT 1']);
  for (const r of sdb.iterate<[number]>('SELECT 1', [], { rowMode: 'array' })) { const v: number = r[0]; void v; }
  await sdb.import(new Uint8Array(0));
  const s2: ReadableStream<Uint8Array> = sdb.exportStream();
  void [o, a2, t2, sb, s2];
  sdb.observe(null);
  const list: w.StoredFile[] = sdb.files.list();
  const raw: w.RawPoolFile[] = sdb.files.scan();
  sdb.close();
  void [arr, wrong, one, all, raw1, cols, ch, total, stream, used, heap];
  void [rows, x, n, id, img, s, prev, r2, list, raw, w.opfsAvailable(), w.poolNameOf('a'), w.HEADER_SIZE];
}
void main;
