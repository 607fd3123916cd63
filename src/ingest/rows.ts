// Normalised rows: the form in which the ingest compares the database with a snapshot. Decimals are
// two-decimal strings and times ISO strings, so that equal data compares equal however it was written
// ("2.1" and "2.10", a Prisma Decimal and a JSON string).
import { Decimal, toFixed2 } from '../domain/decimal.js';
import type { Promotion, Tier } from '../domain/types.js';
import type { PromotionKind, WithholdingKind } from '../domain/vocabulary.js';
import type {
  Snapshot,
  SnapshotBrand,
  SnapshotInstitution,
  SnapshotOffer,
  SnapshotPlan,
  SnapshotSource,
} from './snapshot.js';

const CANONICAL_2DP = /^-?(0|[1-9]\d*)\.\d\d$/;
/** Most values already arrive as "2.10": only the others go through Decimal. */
export const dec2 = (value: string | { toString(): string }): string => {
  const text = value.toString();
  return CANONICAL_2DP.test(text) && text !== '-0.00' ? text : toFixed2(new Decimal(text));
};
export const dec2OrNull = (value: string | { toString(): string } | null): string | null =>
  value === null ? null : dec2(value);
export const iso = (value: string | Date): string => new Date(value).toISOString();
export const isoOrNull = (value: string | Date | null): string | null => (value === null ? null : iso(value));

export interface SourceRow {
  id: string;
  name: string;
  kind: SnapshotSource['kind'];
  url: string;
  status: SnapshotSource['status'];
  lastCheckedAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
}

export interface InstitutionRow {
  id: string;
  name: string;
  country: string;
  lei: string | null;
  dgsScheme: string;
  dgsCountry: string;
  dgsLimit: string;
  dgsVerified: boolean;
  dgsSource: string | null;
  dgsVerifiedAt: string | null;
}

export type BrandRow = SnapshotBrand;

export interface OfferRow {
  id: string;
  brandId: string;
  name: string;
  type: SnapshotOffer['type'];
  termMonths: number | null;
  noticeDays: number | null;
  channel: SnapshotOffer['channel'];
  platform: string | null;
  payout: SnapshotOffer['payout'];
  minAmount: string;
  maxAmount: string | null;
  openToNewCustomers: boolean;
  currentAccountRequired: boolean;
  annualFee: string;
  earlyWithdrawal: boolean;
  interestCompounds: boolean;
  withholdingKind: SnapshotOffer['withholding']['kind'];
  withholdingRate: string | null;
  withholdingReducedRate: string | null;
  sourceId: string;
  sourceUrl: string | null;
  checkedAt: string;
  official: boolean;
  confirmed: boolean;
  status: 'active' | 'removed';
  firstSeenAt: string;
  removedAt: string | null;
}

export interface TierJson {
  from: string;
  to: string | null;
  rate: string;
}

export interface PromotionJson {
  kind: PromotionKind;
  rate: string;
  months: number;
  maxBalance: string | null;
}

// Reading them back: the one place a stored plan's JSON becomes Decimals (the catalogue, the history
// and the impact basis all read plans through these).
const decimalOrNull = (v: string | null) => (v === null ? null : new Decimal(v));

export function tiersFromJson(json: unknown): Tier[] {
  return (json as TierJson[]).map((t) => ({
    from: new Decimal(t.from),
    to: decimalOrNull(t.to),
    rate: new Decimal(t.rate),
  }));
}

export function promotionFromJson(json: unknown): Promotion | null {
  const p = json as PromotionJson | null;
  return p && { kind: p.kind, rate: new Decimal(p.rate), months: p.months, maxBalance: decimalOrNull(p.maxBalance) };
}

/** A stored offer's withholding (its rates are stored as text) as the calculation reads it. */
export function withholdingFromRow(row: {
  withholdingKind: WithholdingKind;
  withholdingRate: { toString(): string } | null;
  withholdingReducedRate: { toString(): string } | null;
}): { kind: WithholdingKind; rate: Decimal | null; reducedRate: Decimal | null } {
  const stored = (v: { toString(): string } | null) => (v === null ? null : new Decimal(v.toString()));
  return {
    kind: row.withholdingKind,
    rate: stored(row.withholdingRate),
    reducedRate: stored(row.withholdingReducedRate),
  };
}

/** The part of a rate plan that, when it differs, makes a new plan. */
export interface PlanTerms {
  headlineRate: string;
  rateType: SnapshotPlan['rateType'];
  tierMode: SnapshotPlan['tierMode'];
  tiers: TierJson[];
  promotion: PromotionJson | null;
}

export interface PlanRow extends PlanTerms {
  id: number;
  offerId: string;
  validFrom: string;
  validTo: string | null;
  observedAt: string;
  sourceId: string;
}

export function sourceRow(s: SnapshotSource, observedAt: string, previous: SourceRow | undefined): SourceRow {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    url: s.url,
    status: s.status,
    lastCheckedAt: observedAt,
    lastSuccessAt: s.status === 'ok' ? observedAt : (previous?.lastSuccessAt ?? null),
    lastError: s.status === 'ok' ? null : s.error,
  };
}

export function institutionRow(i: SnapshotInstitution): InstitutionRow {
  return {
    id: i.id,
    name: i.name,
    country: i.country,
    lei: i.lei,
    dgsScheme: i.dgs.scheme,
    dgsCountry: i.dgs.country,
    dgsLimit: dec2(i.dgs.limit),
    dgsVerified: i.dgs.verified,
    dgsSource: i.dgs.source,
    dgsVerifiedAt: isoOrNull(i.dgs.verifiedAt),
  };
}

export function brandRow(b: SnapshotBrand): BrandRow {
  return { id: b.id, name: b.name, country: b.country, website: b.website, institutionId: b.institutionId };
}

export function offerRow(o: SnapshotOffer, observedAt: string, previous: OfferRow | undefined): OfferRow {
  return {
    id: o.id,
    brandId: o.brandId,
    name: o.name,
    type: o.type,
    termMonths: o.termMonths,
    noticeDays: o.noticeDays,
    channel: o.channel,
    platform: o.platform,
    payout: o.payout,
    minAmount: dec2(o.minAmount),
    maxAmount: dec2OrNull(o.maxAmount),
    openToNewCustomers: o.openToNewCustomers,
    currentAccountRequired: o.currentAccountRequired,
    annualFee: dec2(o.annualFee),
    earlyWithdrawal: o.earlyWithdrawal,
    interestCompounds: o.interestCompounds,
    withholdingKind: o.withholding.kind,
    withholdingRate: dec2OrNull(o.withholding.rate),
    withholdingReducedRate: dec2OrNull(o.withholding.reducedRate),
    sourceId: o.sourceId,
    sourceUrl: o.sourceUrl,
    checkedAt: iso(o.checkedAt),
    official: o.official,
    confirmed: o.confirmed,
    status: 'active',
    firstSeenAt: previous?.firstSeenAt ?? observedAt,
    removedAt: null,
  };
}

type DecimalLike = string | { toString(): string };

/** Tiers as they are stored and shown: every decimal with two decimals. */
export function tiersJson(
  tiers: readonly { from: DecimalLike; to: DecimalLike | null; rate: DecimalLike }[],
): TierJson[] {
  return tiers.map((t) => ({ from: dec2(t.from), to: dec2OrNull(t.to), rate: dec2(t.rate) }));
}

/** A promotion as it is stored and shown: every decimal with two decimals. */
export function promotionJson(
  p: { kind: PromotionKind; rate: DecimalLike; months: number; maxBalance: DecimalLike | null } | null,
): PromotionJson | null {
  return p && { kind: p.kind, rate: dec2(p.rate), months: p.months, maxBalance: dec2OrNull(p.maxBalance) };
}

export function planTerms(p: SnapshotPlan | PlanTerms): PlanTerms {
  return {
    headlineRate: dec2(p.headlineRate),
    rateType: p.rateType,
    tierMode: p.tierMode,
    tiers: tiersJson(p.tiers),
    promotion: promotionJson(p.promotion),
  };
}

/** Field-by-field equality of two rows of the same shape (values are JSON-like). */
export function sameRow<T extends object>(
  a: T,
  b: T,
  keys: readonly (keyof T)[] = Object.keys(a) as (keyof T)[],
): boolean {
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    return x === y || (typeof x === 'object' && x !== null && JSON.stringify(x) === JSON.stringify(y));
  });
}

/** What a daily re-check changes: written with a narrow update, not a whole-row upsert. */
export const FRESHNESS_FIELDS = ['checkedAt', 'official', 'confirmed'] as const;
export const OFFER_FIELDS = Object.keys({
  id: 0,
  brandId: 0,
  name: 0,
  type: 0,
  termMonths: 0,
  noticeDays: 0,
  channel: 0,
  platform: 0,
  payout: 0,
  minAmount: 0,
  maxAmount: 0,
  openToNewCustomers: 0,
  currentAccountRequired: 0,
  annualFee: 0,
  earlyWithdrawal: 0,
  interestCompounds: 0,
  withholdingKind: 0,
  withholdingRate: 0,
  withholdingReducedRate: 0,
  sourceId: 0,
  sourceUrl: 0,
  checkedAt: 0,
  official: 0,
  confirmed: 0,
  status: 0,
  firstSeenAt: 0,
  removedAt: 0,
} satisfies Record<keyof OfferRow, 0>) as (keyof OfferRow)[];
export const OFFER_FIELDS_BUT_FRESHNESS = OFFER_FIELDS.filter(
  (f) => !(FRESHNESS_FIELDS as readonly string[]).includes(f),
);

export function sameTerms(a: PlanTerms, b: PlanTerms): boolean {
  return sameRow(planTerms(a), planTerms(b));
}

export type { Snapshot };
