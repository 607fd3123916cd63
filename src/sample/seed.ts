// First start: an empty database gets the generated sample market, through the real ingest, so that
// its history and events come out of the same pipeline as any other data.
import type { PrismaClient } from '../db/client.js';
import type { Capacity } from '../ingest/capacity.js';
import { ingestAll, type RunSummary } from '../ingest/run.js';
import { generateSnapshots, type SampleOptions } from './generate.js';

export async function seedSample(
  prisma: PrismaClient,
  options: SampleOptions,
  progress = false,
  capacity?: Capacity,
): Promise<RunSummary> {
  const snapshots = generateSnapshots(options);
  const sources = (function* () {
    for (const snapshot of snapshots)
      yield { name: `sample ${snapshot.observedAt.slice(0, 10)}`, load: () => snapshot };
  })();
  return ingestAll(prisma, sources, { progress, total: options.days, capacity });
}

/** Seeds only a database that has never ingested anything. */
export async function seedSampleIfEmpty(
  prisma: PrismaClient,
  options: SampleOptions,
  progress = false,
): Promise<RunSummary | null> {
  if ((await prisma.ingestRun.count()) > 0) return null;
  return seedSample(prisma, options, progress);
}
