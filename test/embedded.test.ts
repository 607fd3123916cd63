// The embedded database's lock: one process opens the folder, any other connects to it.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openEmbedded, openInMemory } from '../src/db/embedded.js';

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
      expect(JSON.parse(await readFile(path.join(dir, 'embedded.lock.json'), 'utf8'))).toMatchObject({ pid: process.pid });
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
      await writeFile(path.join(dir, 'embedded.lock.json'), JSON.stringify({ pid: process.ppid, port, startedAt: new Date().toISOString() }));
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
    await writeFile(path.join(dir, 'embedded.lock.json'), JSON.stringify({ pid: 2 ** 22 + 12345, port: 1, startedAt: '2026-01-01T00:00:00.000Z' }));
    const db = await openEmbedded(dir);
    try {
      expect(db.owner).toBe(true);
    } finally {
      await db.close();
    }
  });
});
