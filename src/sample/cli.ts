// `npm run sample -- [--seed 42] [--days 400] [--end YYYY-MM-DD] [--scale 1] --out DIR | --ingest`:
// writes one compact JSON snapshot per day (`YYYY-MM-DD.json`, so file-name order is day order)
// of the fictional sample market, or feeds them straight into the configured database through the
// ingest (no files: at --scale 20 they would take ≈5 GB). Reads the clock for the default --end and so
// that no snapshot is dated after it.
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { INGEST_QUERY_TIMEOUT_MS, openDatabase } from '../db/client.js';
import { configuredTurn, withTurn } from '../db/write-turn.js';
import { formatSummary } from '../ingest/run.js';
import { generateSnapshots, sampleOptionErrors, type SampleOptions } from './generate.js';
import { seedSample } from './seed.js';
import { capacityOf } from '../ingest/capacity.js';

export interface SampleCliOptions extends SampleOptions {
  /** Where to write the files; null: not given. */
  out: string | null;
  /** Apply the snapshots to the configured database instead of writing files. */
  ingest: boolean;
  help: boolean;
}

export type ParsedSampleArgs = { ok: true; options: SampleCliOptions } | { ok: false; errors: string[] };

export const SAMPLE_USAGE =
  'Usage: npm run sample -- [--seed N] [--days N] [--end YYYY-MM-DD] [--scale N] (--out DIR | --ingest)' +
  `

Writes one snapshot of the fictional sample market per day into DIR, named YYYY-MM-DD.json,
or (--ingest) applies them one by one to the configured database through the ingest.
  --seed N           random seed, 0..4294967295 (default 42)
  --days N           number of days, 1..3650 (default 400)
  --end YYYY-MM-DD   the last day, not after today (default: today, UTC; today's snapshot is
                     dated 06:00 UTC, or now when that is earlier)
  --scale N          multiplies the number of offers, 1..100 (default 1)
  --out DIR          output directory (created when missing)
  --ingest           ingest into the database (DATABASE_URL, or the embedded one in DATA_DIR)
  --help             this text`;

const INTEGER = /^\d+$/;

/**
 * Parses the command line (without node and the script). `now` is the clock: its day is the default
 * for --end, and no snapshot is dated after it. Accepts `--flag value` and `--flag=value`; reports
 * every problem at once.
 */
export function parseSampleArgs(argv: readonly string[], now: Date): ParsedSampleArgs {
  const today = now.toISOString().slice(0, 10);
  const errors: string[] = [];
  const values = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--ingest') {
      values.set('ingest', 'true');
      continue;
    }
    const m = /^--(seed|days|end|scale|out)(?:=(.*))?$/.exec(arg);
    if (!m) {
      errors.push(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}`);
      continue;
    }
    const name = m[1] as string;
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        errors.push(`--${name} needs a value`);
        continue;
      }
      value = next;
      i++;
    }
    if (values.has(name)) errors.push(`--${name} given twice`);
    values.set(name, value);
  }

  const integer = (name: string, fallback: number): number => {
    const v = values.get(name);
    if (v === undefined) return fallback;
    if (!INTEGER.test(v)) {
      errors.push(`--${name} must be a whole number (got ${JSON.stringify(v)})`);
      return fallback;
    }
    return Number(v);
  };
  const options: SampleCliOptions = {
    seed: integer('seed', 42),
    days: integer('days', 400),
    end: values.get('end') ?? today,
    scale: integer('scale', 1),
    notAfter: now.toISOString(),
    out: values.get('out') ?? null,
    ingest: values.has('ingest'),
    help,
  };
  if (options.out === '') errors.push('--out must not be empty');
  if (options.out !== null && options.ingest) errors.push('--out and --ingest exclude each other');
  errors.push(...sampleOptionErrors(options).map((e) => `--${e}`));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, options };
}

async function ingest(options: SampleOptions): Promise<number> {
  const config = loadConfig();
  const say = (line: string) => process.stderr.write(`${line}\n`);
  // An ingest like any other: it waits for its turn before it connects (see ingest/cli.ts).
  return withTurn(config, configuredTurn(config, 'ingest', say), async () => {
    const db = await openDatabase({ ...config, log: say, writeTurn: 'held', queryTimeoutMs: INGEST_QUERY_TIMEOUT_MS });
    try {
      process.stderr.write(
        `sample: ${options.days} days to ${options.end}, seed ${options.seed}, scale ${options.scale} → ` +
          `${db.kind} database\n`,
      );
      const summary = await seedSample(db.prisma, options, true, capacityOf(config));
      process.stdout.write(`${formatSummary(summary)}\n`);
      return 0;
    } finally {
      await db.close();
    }
  });
}

async function main(): Promise<number> {
  const parsed = parseSampleArgs(process.argv.slice(2), new Date());
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`error: ${e}\n`);
    process.stderr.write(`\n${SAMPLE_USAGE}\n`);
    return 2;
  }
  const { options } = parsed;
  if (options.help) {
    process.stdout.write(`${SAMPLE_USAGE}\n`);
    return 0;
  }
  if (options.ingest) return ingest(options);
  if (options.out === null) {
    process.stderr.write(`one of --out or --ingest is required\n\n${SAMPLE_USAGE}\n`);
    return 2;
  }
  const out = options.out;
  mkdirSync(out, { recursive: true });

  const started = performance.now();
  const written = new Set<string>();
  let bytes = 0;
  let lastOffers = 0;
  let day = 0;
  process.stderr.write(
    `sample: ${options.days} days to ${options.end}, seed ${options.seed}, scale ${options.scale} → ${out}\n`,
  );
  for (const snapshot of generateSnapshots(options)) {
    const file = `${snapshot.observedAt.slice(0, 10)}.json`;
    const json = JSON.stringify(snapshot);
    writeFileSync(join(out, file), json);
    written.add(file);
    bytes += Buffer.byteLength(json);
    lastOffers = snapshot.offers.length;
    day++;
    if (day % 50 === 0 || day === options.days) process.stderr.write(`  ${day}/${options.days} ${file}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const stale = readdirSync(out).filter((f) => f.endsWith('.json') && !written.has(f));
  if (stale.length > 0) {
    process.stderr.write(
      `warning: ${out} also holds ${stale.length} other .json file(s) (e.g. ${stale[0]}); an ingest of the ` +
        `directory would apply them too\n`,
    );
  }
  process.stderr.write(
    `sample: ${day} days, ${lastOffers} offers on the last day, ${bytes} bytes (` +
      `${(bytes / 1_048_576).toFixed(1)} MiB) in ${seconds.toFixed(1)} s\n`,
  );
  return 0;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`sample: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
