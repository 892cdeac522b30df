// Compiled by tsc (never run): uses the hand-written declarations the way
// package users do, through the package's own exports map.
import { open, SqliteError, type Database, type Row, type TempcryptStats } from 'sqlite-tempcrypt';
import * as w from 'sqlite-tempcrypt/worker';

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
  const s: TempcryptStats = await db.tempcrypt.stats();
  const prev: boolean = await db.tempcrypt.setEnabled(false);
  await db.close();
  try { await open('m', { storage: 'memory' }); } catch (e) { if (e instanceof SqliteError) { const c: number = e.code; void c; } }

  const sdb: w.SyncDatabase = await w.open('app.db', { storage: 'memory', observer: (ev: w.StorageEvent) => { if (ev.op === 'write' && ev.temp) void ev.data?.length; } });
  const r2: w.Row[] = sdb.query('SELECT 1 AS one');
  sdb.observe(null);
  const list: w.StoredFile[] = sdb.files.list();
  const raw: w.RawPoolFile[] = sdb.files.scan();
  sdb.close();
  void [rows, x, n, id, img, s, prev, r2, list, raw, w.opfsAvailable(), w.poolNameOf('a'), w.HEADER_SIZE];
}
void main;
