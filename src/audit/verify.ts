// The auditor's check of a running service, from the outside, with nothing but its public API and this
// calculation: the ledger's chain, every version's state against its hash, then rankings of the past
// recomputed from those states and compared with what the service answers for them (docs/ledger.md).
import { execute, parse } from 'graphql';
import { createCalcService } from '../catalog/calc-service.js';
import { catalogOf } from '../catalog/load.js';
import type { MarketHistory } from '../catalog/history.js';
import type { Catalog } from '../catalog/types.js';
import { DatabaseStatus } from '../db/status.js';
import type { CurrentState } from '../ingest/diff.js';
import { chainHashOf, GENESIS, sha256, type CanonicalState, type LedgerEntry } from '../ingest/ledger.js';
import type { Context, Services } from '../graphql/context.js';
import { createLoaders, HistoryCache } from '../graphql/loaders.js';
import { schema } from '../graphql/schema/index.js';
import { Rng } from '../sample/random.js';

/** Rankings recomputed per sampled version. */
const RANKINGS_PER_VERSION = 4;

export interface Finding {
  kind: 'chain' | 'missing' | 'state' | 'ranking' | 'answer';
  version?: number;
  detail: string;
}

export interface Report {
  versions: number;
  states: number;
  rankings: number;
  findings: Finding[];
}

export interface VerifyOptions {
  /** The service, e.g. http://127.0.0.1:3000 */
  base: string;
  /** Past rankings to recompute. */
  samples: number;
  seed?: number;
  /** Requests at once. */
  concurrency?: number;
  log?: (line: string) => void;
}

interface WireEntry {
  version: number;
  observedAt: string;
  appliedAt: string;
  snapshot: string;
  stateHash: string;
  previous: string;
  chainHash: string;
}

/** What is compared: the ranking and everything computed beside it (not the market view, made from the history). */
const RANKING = `total page pages generatedAt method
  items { id eligible ineligibleReason headlineRate
    calc { amount months comparableYield effectiveRate returnPerYear grossInterest withholdingTax fees netInterest
      endBalance }
    dgs { covered uncovered coveredPercent fullyCovered } }
  facets { type { value count } channel { value count } country { value count } dgsCountry { value count }
    payout { value count } term { value count } withholding { value count } }
  termCurve { term rate offerId }
  typeMax { flexible { rate offerId } notice { rate offerId } deposit { rate offerId } }`;

const QUERY = `query($asOf: DateTime, $amount: Decimal!, $type: TypeFilter!, $sort: SortKey!,
  $fullDgs: Boolean!, $horizon: Int!) {
  products(asOf: $asOf, amount: $amount, type: $type, sort: $sort, fullDgs: $fullDgs, horizon: $horizon,
    pageSize: 100) {
    ${RANKING}
  }
}`;
const LOCAL = parse(QUERY);

/** A canonical state as the catalogue is built from it. */
export function stateOf(canonical: CanonicalState): CurrentState {
  return {
    sources: new Map(canonical.sources.map((r) => [r.id, r])),
    institutions: new Map(canonical.institutions.map((r) => [r.id, r])),
    brands: new Map(canonical.brands.map((r) => [r.id, r])),
    offers: new Map(canonical.offers.map((r) => [r.id, r])),
    currentPlans: new Map(canonical.plans.map((p) => [p.offerId, p])),
  };
}

/** The calculation's memo, shared by every ranking recomputed here (its keys are the offers' terms). */
const localCalc = createCalcService({ maxBytes: 64 * 1024 * 1024 });

/** The list for a catalogue, computed here with the service's own schema and calculation. */
async function localRanking(catalog: Catalog, variables: Record<string, unknown>): Promise<unknown> {
  const noMarket: MarketHistory = {
    days: () => Promise.reject(new Error('not verified')),
    best: () => Promise.reject(new Error('not verified')),
    stats: () => ({ entries: 0, bytes: 0, maxBytes: 0 }),
  };
  const database = new DatabaseStatus();
  const services = {
    calc: localCalc,
    market: noMarket,
    database,
  } as unknown as Services;
  const contextValue: Context = {
    services,
    catalog,
    now: catalog.generatedAt,
    loaders: createLoaders(null as never, new HistoryCache(1024), database, catalog),
    answered: new Map(),
  };
  const { asOf: _asOf, ...rest } = variables;
  const result = await execute({ schema, document: LOCAL, contextValue, variableValues: rest });
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.data?.products;
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export async function verify(options: VerifyOptions): Promise<Report> {
  const { base, samples } = options;
  const started = performance.now();
  const say = options.log ?? (() => undefined);
  const log = (line: string) => say(`${line} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const concurrency = options.concurrency ?? 4;
  const findings: Finding[] = [];
  const get = async (path: string, init?: RequestInit) => {
    const res = await fetch(new URL(path, base), init);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return res;
  };

  // 1. The ledger, every page, and its chain.
  const entries: WireEntry[] = [];
  for (let page = 1; ; page++) {
    const body = (await (await get(`/api/ledger?page=${page}&pageSize=500`)).json()) as {
      items: WireEntry[];
      pages: number;
    };
    entries.push(...body.items);
    if (page >= body.pages) break;
  }
  let previous = GENESIS;
  entries.forEach((e, i) => {
    const before = entries[i - 1];
    if (before && e.version !== before.version + 1) {
      findings.push({
        kind: 'missing',
        version: e.version,
        detail: `versions ${before.version + 1}–${e.version - 1} are missing from the ledger`,
      });
    }
    const fields = {
      ...e,
      observedAt: new Date(e.observedAt).toISOString(),
      appliedAt: new Date(e.appliedAt).toISOString(),
    };
    if (chainHashOf(previous, fields) !== e.chainHash)
      findings.push({
        kind: 'chain',
        version: e.version,
        detail: 'its chain hash is not that of its fields and the entry before',
      });
    previous = e.chainHash;
  });
  log(`ledger: ${entries.length} versions, chain ${findings.length === 0 ? 'unbroken' : 'BROKEN'}`);

  // 2. Every version's state against its hash; the sampled ones kept for step 3.
  const rng = new Rng(options.seed ?? 1);
  // A few rankings per version (four), of versions drawn at random: each version the service reads back
  // once serves several rankings.
  const sampled = new Map<number, WireEntry>();
  for (let i = 0; i < Math.ceil(samples / RANKINGS_PER_VERSION) && entries.length > 0; i++) {
    const e = entries[rng.int(0, entries.length - 1)]!;
    sampled.set(e.version, e);
  }
  const states = new Map<number, CanonicalState>();
  let checked = 0;
  await pool(entries, concurrency, async (e) => {
    const res = await get(`/api/state?asOf=${encodeURIComponent(e.observedAt)}`);
    const text = await res.text();
    const served = Number(res.headers.get('data-version'));
    if (served !== e.version) {
      findings.push({ kind: 'answer', version: e.version, detail: `asOf its observedAt answers version ${served}` });
      return;
    }
    checked++;
    if (sha256(text) !== e.stateHash)
      findings.push({ kind: 'state', version: e.version, detail: 'its state does not hash to its stateHash' });
    else if (sampled.has(e.version)) states.set(e.version, JSON.parse(text) as CanonicalState);
  });
  log(`states: ${checked} of ${entries.length} hashed and compared`);

  // 3. Past rankings, recomputed from the states and compared with the service's answers for them.
  const TYPES = ['ALL', 'FLEXIBLE', 'NOTICE', 'DEPOSIT'];
  const SORTS = ['RETURN', 'EFFECTIVE', 'HEADLINE', 'MIN'];
  const jobs = Array.from({ length: samples }, () => {
    const versions = [...states.keys()];
    const version = versions[rng.int(0, Math.max(0, versions.length - 1))];
    const cents = Math.round(100_000 * 10_000 ** (rng.int(0, 1_000_000) / 1_000_000));
    return {
      version,
      variables: {
        amount: (cents / 100).toFixed(2),
        type: TYPES[rng.int(0, TYPES.length - 1)]!,
        sort: SORTS[rng.int(0, SORTS.length - 1)]!,
        fullDgs: rng.int(0, 3) === 0,
        horizon: rng.int(1, 60),
      },
    };
  })
    .filter((j): j is typeof j & { version: number } => j.version !== undefined)
    .sort((a, b) => a.version - b.version);
  // Jobs come in order of version: a version's catalogue is dropped once its last ranking is compared.
  const catalogs = new Map<number, Catalog>();
  const pending = new Map<number, number>();
  for (const j of jobs) pending.set(j.version, (pending.get(j.version) ?? 0) + 1);
  let rankings = 0;
  await pool(jobs, concurrency, async ({ version, variables }) => {
    const e = sampled.get(version)!;
    let catalog = catalogs.get(version);
    if (!catalog) {
      const entry = { ...e, maxPlanId: 0, maxEventId: 0 } as LedgerEntry;
      catalogs.set(version, (catalog = catalogOf(entry, stateOf(states.get(version)!))));
    }
    const asOf = e.observedAt;
    const res = await get('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY, variables: { ...variables, asOf } }),
    });
    const served = (await res.json()) as { data?: { products: unknown }; errors?: unknown[] };
    const mine = await localRanking(catalog, variables);
    rankings++;
    const left = pending.get(version)! - 1;
    pending.set(version, left);
    if (left === 0) catalogs.delete(version);
    if (JSON.stringify(served.data?.products) !== JSON.stringify(mine)) {
      findings.push({
        kind: 'ranking',
        version,
        detail: `products(asOf: ${asOf}, ${Object.entries(variables)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(', ')}) differs from the ranking its state gives`,
      });
    }
  });
  log(
    `rankings: ${rankings} recomputed from the states, ${findings.filter((f) => f.kind === 'ranking').length} differ`,
  );
  return { versions: entries.length, states: checked, rankings, findings };
}
