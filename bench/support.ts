// Shared by the benchmarks: the sample market's last day, ingested into an in-memory database.
import { createPrisma, type PrismaClient } from '../src/db/client.js';
import { openInMemory } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { applySnapshot } from '../src/ingest/apply.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';

export const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function lastDay(scale: number): Snapshot {
  let last: Snapshot | undefined;
  for (const s of generateSnapshots({ seed: 42, days: 400, end: '2026-11-23', scale })) last = s;
  return last!;
}

export async function marketDatabase(
  scale: number,
): Promise<{ prisma: PrismaClient; url: string; close(): Promise<void> }> {
  const db = await openInMemory();
  await applyMigrations(db.url);
  const prisma = createPrisma(db.url, 4);
  await applySnapshot(prisma, lastDay(scale));
  return {
    prisma,
    url: db.url,
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
