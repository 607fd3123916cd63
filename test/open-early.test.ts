// The embedded database opened while the service loads: handed over once, with the writers' turn held,
// and only where a database exists (a first start is first-start.ts's; PostgreSQL is server.ts's).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openEmbedded } from '../src/db/embedded.js';
import { takeTurn } from '../src/db/write-turn.js';
import { openEarly, takeEarly } from '../src/open-early.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('openEarly', () => {
  it('opens an existing embedded database, holding the turn of a start, and hands it over once', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'early-'));
    await (await openEmbedded(dataDir)).close(); // a database there, as after any start
    Object.assign(process.env, { DATA_DIR: dataDir, WORKERS: '1' });
    delete process.env.DATABASE_URL;
    await openEarly();
    const early = takeEarly();
    expect(early).not.toBeNull();
    expect(takeEarly()).toBeNull();
    const { embedded, held } = await early!;
    try {
      expect(embedded.owner).toBe(true);
      const client = new pg.Client({ connectionString: embedded.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
      // an ingest waits for the start-up's turn
      await expect(
        takeTurn({ databaseUrl: undefined, dataDir }, { activity: 'an ingest', waitMs: 300 }),
      ).rejects.toThrow(/start-up/);
    } finally {
      await held.release();
      await embedded.close();
    }
  }, 60_000);

  it('leaves a first start, and PostgreSQL, to the paths that open them', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'early-'));
    Object.assign(process.env, { DATA_DIR: dataDir });
    delete process.env.DATABASE_URL;
    await openEarly();
    expect(takeEarly()).toBeNull();
    Object.assign(process.env, { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    await openEarly();
    expect(takeEarly()).toBeNull();
  });
});
