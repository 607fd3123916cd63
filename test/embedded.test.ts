// The embedded database's lock: one process opens the folder, any other connects to it.
import { mkdtemp, readFile, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openEmbedded, openInMemory, startPglite, writeTemplate } from '../src/db/embedded.js';
import { applyMigrations, isUpToDate } from '../src/db/migrate.js';

const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'embedded-'));

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('openEmbedded', () => {
  it('creates the folder, owns it and releases it on close', async () => {
    const dir = path.join(await tempDir(), 'nested', 'data');
    const db = await openEmbedded(dir);
    try {
      expect(db.owner).toBe(true);
      expect(JSON.parse(await readFile(path.join(dir, 'embedded.lock.json'), 'utf8'))).toMatchObject({
        pid: process.pid,
      });
      await query(db.url, 'CREATE TABLE t (x int); INSERT INTO t VALUES (42)');
      await expect(openEmbedded(dir)).rejects.toThrow(/already open in this process/);
    } finally {
      await db.close();
    }
    // Reopened: the data survived and the lock was released.
    const again = await openEmbedded(dir);
    try {
      expect(await query(again.url, 'SELECT x FROM t')).toEqual([{ x: 42 }]);
    } finally {
      await again.close();
    }
  });

  it('connects to the process that has the folder open instead of opening it twice', async () => {
    const dir = await tempDir();
    const other = await openInMemory(); // stands in for the owner process's socket
    try {
      const port = Number(new URL(other.url).port);
      await writeFile(
        path.join(dir, 'embedded.lock.json'),
        JSON.stringify({ pid: process.ppid, port, startedAt: new Date().toISOString() }),
      );
      const db = await openEmbedded(dir);
      expect(db).toMatchObject({ owner: false, url: other.url });
      expect(await query(db.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      await db.close();
    } finally {
      await other.close();
    }
  });

  it('takes over a lock whose process is gone', async () => {
    const dir = await tempDir();
    await writeFile(
      path.join(dir, 'embedded.lock.json'),
      JSON.stringify({ pid: 2 ** 22 + 12345, port: 1, startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const db = await openEmbedded(dir);
    try {
      expect(db.owner).toBe(true);
    } finally {
      await db.close();
    }
  });
});

describe('openEmbedded after a process died while opening', () => {
  it('takes over a lock left empty, once it is older than its owner could take to write it', async () => {
    const dir = await tempDir();
    const lock = path.join(dir, 'embedded.lock.json');
    await writeFile(lock, '');
    const past = new Date(Date.now() - 60_000);
    await utimes(lock, past, past);
    const db = await openEmbedded(dir, { waitMs: 2_000 });
    try {
      expect(db.owner).toBe(true);
      expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    } finally {
      await db.close();
    }
  });

  it('names its owner in the lock while PostgreSQL starts, before it has a port', async () => {
    const dir = await tempDir();
    const lock = path.join(dir, 'embedded.lock.json');
    const seen: unknown[] = [];
    const opening = openEmbedded(dir, {
      onThread: () => void readFile(lock, 'utf8').then((text) => seen.push(JSON.parse(text))),
    });
    const db = await opening;
    await db.close();
    expect(seen).toEqual([expect.objectContaining({ pid: process.pid, port: 0 })]);
  });
});

describe('the template a new data folder starts from', () => {
  it('is a migrated database: a folder made from it needs no migration, and one made without it does', async () => {
    const dir = await tempDir();
    const template = path.join(dir, 'template.tar.gz');
    expect(await writeTemplate(applyMigrations, template)).not.toHaveLength(0);
    const tables = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename";
    const fromTemplate = await startPglite(path.join(dir, 'a'), undefined, 1, template);
    const plain = await startPglite(path.join(dir, 'b'), undefined, 1, null);
    try {
      const url = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
      expect(await isUpToDate(url(fromTemplate.port))).toBe(true);
      expect(await isUpToDate(url(plain.port))).toBe(false);
      expect(await applyMigrations(url(fromTemplate.port))).toEqual([]);
      await applyMigrations(url(plain.port));
      expect(await query(url(fromTemplate.port), tables)).toEqual(await query(url(plain.port), tables));
      // the copy is a database of its own: written, it stays apart from the template
      await query(
        url(fromTemplate.port),
        `INSERT INTO "DataVersion" ("id", "version", "changedAt") VALUES (1, 7, now())`,
      );
    } finally {
      await fromTemplate.stop();
      await plain.stop();
    }
    const again = await startPglite(path.join(dir, 'c'), undefined, 1, template);
    try {
      const url = `postgresql://postgres:postgres@127.0.0.1:${again.port}/postgres`;
      expect(await query(url, 'SELECT count(*)::int AS n FROM "DataVersion"')).toEqual([{ n: 0 }]);
    } finally {
      await again.stop();
    }
  }, 60_000);
});

describe('one PGlite session shared by many connections', () => {
  it('answers every connection its own query, also when queries queued behind a transaction', async () => {
    const db = await openInMemory();
    const pool = new pg.Pool({ connectionString: db.url, max: 8 });
    const holder = new pg.Client({ connectionString: db.url });
    try {
      await holder.connect();
      await pool.query('CREATE TABLE a (n int); CREATE TABLE b (s text)');
      await pool.query(
        "INSERT INTO a SELECT g FROM generate_series(1, 50) g; INSERT INTO b SELECT 'b' || g FROM " +
          'generate_series(1, 50) g',
      );
      for (let round = 0; round < 3; round++) {
        // Another connection holds a transaction: every query of the pool waits, then all run at once.
        await holder.query('BEGIN');
        await holder.query('INSERT INTO a VALUES (1000)');
        const answers = Array.from({ length: 40 }, (_, i) =>
          i % 2 === 0
            ? pool.query('SELECT n FROM a WHERE n = $1', [i + 1]).then((r) => r.rows)
            : pool.query('SELECT s, length(s) AS l FROM b WHERE s = $1', [`b${i + 1}`]).then((r) => r.rows),
        );
        await new Promise((r) => setTimeout(r, 50));
        await holder.query('ROLLBACK');
        const rows = await Promise.all(answers);
        for (const [i, r] of rows.entries()) {
          expect(r).toEqual(i % 2 === 0 ? [{ n: i + 1 }] : [{ s: `b${i + 1}`, l: String(i + 1).length + 1 }]);
        }
      }
      expect((await pool.query('SELECT count(*)::int AS c FROM a')).rows).toEqual([{ c: 50 }]);
    } finally {
      await holder.end();
      await pool.end();
      await db.close();
    }
  });

  it('rolls back the transaction of a connection that vanished and keeps serving the others', async () => {
    const db = await openInMemory();
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    try {
      await pool.query('CREATE TABLE t (x int)');
      const doomed = new pg.Client({ connectionString: db.url });
      doomed.on('error', () => {});
      await doomed.connect();
      await doomed.query('BEGIN');
      await doomed.query('INSERT INTO t VALUES (1)');
      const waiting = pool.query('SELECT count(*)::int AS c FROM t');
      (doomed as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      expect((await waiting).rows).toEqual([{ c: 0 }]);
      await pool.query('INSERT INTO t VALUES (2)');
      expect((await pool.query('SELECT array_agg(x) AS xs FROM t')).rows).toEqual([{ xs: [2] }]);
    } finally {
      await pool.end();
      await db.close();
    }
  });
});
