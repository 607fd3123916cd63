// The canonical text of a state (what GET /api/state serves and a ledger entry's stateHash hashes):
// JSON with every object's keys sorted, every kind of row sorted by id, no white space.
import { createHash } from 'node:crypto';
import type { CurrentState } from './diff.js';
import {
  OFFER_FIELDS,
  planTerms,
  type BrandRow,
  type InstitutionRow,
  type OfferRow,
  type PlanRow,
  type SourceRow,
} from './rows.js';

/** JSON with every object's keys sorted and no white space: one text for one value. */
export function canonicalJson(value: unknown): string {
  // JSON.stringify writes keys in the order they were added, which sortedCopy chose, except for keys
  // that are array indices ("0", "17"): it writes those first, by number. Such a value is built by hand.
  try {
    return JSON.stringify(sortedCopy(value));
  } catch (err) {
    if (err !== INDEX_KEY) throw err;
    return builtJson(value);
  }
}

const INDEX_KEY = Symbol('an array-index key');

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const record = value as Record<string, unknown>;
  const { keys, indexKey } = sortedKeys(Object.keys(record));
  if (indexKey) throw INDEX_KEY;
  const copy: Record<string, unknown> = {};
  for (const [key] of keys) {
    const v = record[key];
    if (v === undefined) continue;
    // an own "__proto__" is a member like any other; assigned, it would set the copy's prototype
    if (key === '__proto__') Object.defineProperty(copy, key, { value: sortedCopy(v), enumerable: true });
    else copy[key] = sortedCopy(v);
  }
  return copy;
}

function builtJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + builtJson(value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const [key, quoted] of sortedKeys(Object.keys(record)).keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += (out.length > 1 ? ',' : '') + quoted + ':' + builtJson(v);
  }
  return out + '}';
}

// A state is thousands of rows of a handful of shapes: each shape's keys are sorted and quoted once.
interface Shape {
  keys: [string, string][];
  indexKey: boolean;
}
const shapes = new Map<string, Shape>();
const isIndex = (key: string) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
function sortedKeys(keys: string[]): Shape {
  const id = JSON.stringify(keys);
  let shape = shapes.get(id);
  if (!shape) {
    shape = {
      keys: [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => [k, JSON.stringify(k)]),
      indexKey: keys.some(isIndex),
    };
    // Keys come from our own rows, but a bound keeps a caller with arbitrary objects from growing it.
    if (shapes.size < 1024) shapes.set(id, shape);
  }
  return shape;
}

// Each kind of row with exactly its fields, whatever else an object carries.
export const sourceOf = (s: SourceRow): SourceRow => ({
  id: s.id,
  name: s.name,
  kind: s.kind,
  url: s.url,
  status: s.status,
  lastCheckedAt: s.lastCheckedAt,
  lastSuccessAt: s.lastSuccessAt,
  lastError: s.lastError,
});
export const institutionOf = (i: InstitutionRow): InstitutionRow => ({
  id: i.id,
  name: i.name,
  country: i.country,
  lei: i.lei,
  dgsScheme: i.dgsScheme,
  dgsCountry: i.dgsCountry,
  dgsLimit: i.dgsLimit,
  dgsVerified: i.dgsVerified,
  dgsSource: i.dgsSource,
  dgsVerifiedAt: i.dgsVerifiedAt,
});
export const brandOf = (b: BrandRow): BrandRow => ({
  id: b.id,
  name: b.name,
  country: b.country,
  website: b.website,
  institutionId: b.institutionId,
});
export function offerOf(o: OfferRow): OfferRow {
  const row: Record<string, unknown> = {};
  for (const field of OFFER_FIELDS) row[field] = o[field];
  return row as unknown as OfferRow;
}
/** A plan in force at a version: open at that version, whatever closed it later. */
const planOf = (p: PlanRow): PlanRow => ({
  id: p.id,
  offerId: p.offerId,
  validFrom: p.validFrom,
  validTo: null,
  observedAt: p.observedAt,
  sourceId: p.sourceId,
  ...planTerms(p),
});

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The state at a version, as GET /api/state serves it: every kind sorted by id, plans by offer id. */
export interface CanonicalState {
  brands: BrandRow[];
  institutions: InstitutionRow[];
  offers: OfferRow[];
  /** The plan in force of each active offer. */
  plans: PlanRow[];
  sources: SourceRow[];
}

export function canonicalState(state: CurrentState): CanonicalState {
  const offers = [...state.offers.values()].map(offerOf).sort(byId);
  const plans: PlanRow[] = [];
  for (const o of offers) {
    const plan = o.status === 'active' ? state.currentPlans.get(o.id) : undefined;
    if (plan) plans.push(planOf(plan));
  }
  return {
    brands: [...state.brands.values()].map(brandOf).sort(byId),
    institutions: [...state.institutions.values()].map(institutionOf).sort(byId),
    offers,
    plans,
    sources: [...state.sources.values()].map(sourceOf).sort(byId),
  };
}

/**
 * The state's canonical text (what GET /api/state serves, and what a ledger entry's stateHash hashes):
 * canonicalJson(canonicalState(state)), built from each row's own canonical text. A version shares
 * most of its rows (the same objects) with the version before, so their texts are made once.
 */
export function stateText(state: CurrentState): string {
  const parts: string[] = [];
  statePieces(state, (piece) => parts.push(piece));
  return parts.join('');
}

/** sha256(stateText(state)), without making the text: each piece goes to the hash as it comes. */
export function stateHash(state: CurrentState): string {
  const hash = createHash('sha256');
  statePieces(state, (piece) => hash.update(piece, 'utf8'));
  return hash.digest('hex');
}

function statePieces(state: CurrentState, put: (piece: string) => void): void {
  const offers = [...state.offers.values()].sort(byId);
  const plans: PlanRow[] = [];
  for (const o of offers) {
    const plan = o.status === 'active' ? state.currentPlans.get(o.id) : undefined;
    if (plan) plans.push(plan);
  }
  const list = <T extends object>(name: string, rows: T[], of: (row: T) => object) => {
    put(name === 'brands' ? '{"brands":[' : `],"${name}":[`);
    rows.forEach((row, i) => {
      if (i > 0) put(',');
      put(rowText(row, of));
    });
  };
  list('brands', [...state.brands.values()].sort(byId), brandOf);
  list('institutions', [...state.institutions.values()].sort(byId), institutionOf);
  list('offers', offers, offerOf);
  list('plans', plans, planOf);
  list('sources', [...state.sources.values()].sort(byId), sourceOf);
  put(']}');
}

// Rows are never changed in place (a change makes a new row), so a row's text holds as long as the row.
const rowTexts = new WeakMap<object, string>();
function rowText<T extends object>(row: T, of: (row: T) => object): string {
  let text = rowTexts.get(row);
  if (text === undefined) {
    text = canonicalJson(of(row));
    rowTexts.set(row, text);
  }
  return text;
}
