// The heart of the ingest, pure: what a snapshot changes in the current state, as rows to write and
// change events. No database, no clock: the snapshot's observedAt is the time of everything here.
import { Decimal } from '../domain/decimal.js';
import {
  brandRow,
  institutionRow,
  iso,
  offerRow,
  planTerms,
  sameRow,
  sourceRow,
  FRESHNESS_FIELDS,
  OFFER_FIELDS_BUT_FRESHNESS,
  type BrandRow,
  type InstitutionRow,
  type OfferRow,
  type PlanRow,
  type PlanTerms,
  type SourceRow,
} from './rows.js';
import type { Snapshot } from './snapshot.js';

export { EVENT_KINDS, type EventKind } from '../domain/vocabulary.js';
import type { EventKind } from '../domain/vocabulary.js';

export interface CurrentState {
  sources: ReadonlyMap<string, SourceRow>;
  institutions: ReadonlyMap<string, InstitutionRow>;
  brands: ReadonlyMap<string, BrandRow>;
  offers: ReadonlyMap<string, OfferRow>;
  /** The open plan (validTo null) of each active offer. */
  currentPlans: ReadonlyMap<string, PlanRow>;
}

export interface NewPlan extends PlanTerms {
  offerId: string;
  validFrom: string;
  observedAt: string;
  sourceId: string;
}

export interface NewEvent {
  kind: EventKind;
  at: string;
  offerId: string | null;
  brandId: string | null;
  institutionId: string | null;
  summary: string;
  from: Record<string, unknown> | null;
  to: Record<string, unknown> | null;
}

export interface ChangeSet {
  sources: SourceRow[];
  institutions: InstitutionRow[];
  brands: BrandRow[];
  /** Offers to insert or update (whole rows). */
  offers: OfferRow[];
  /** Offers of which only the freshness changed (a daily re-check). */
  freshness: Pick<OfferRow, 'id' | (typeof FRESHNESS_FIELDS)[number]>[];
  /** Ids of open plans to close with validTo = observedAt. */
  closePlans: number[];
  newPlans: NewPlan[];
  events: NewEvent[];
}

export const isEmpty = (c: ChangeSet): boolean =>
  c.sources.length +
    c.institutions.length +
    c.brands.length +
    c.offers.length +
    c.freshness.length +
    c.closePlans.length +
    c.newPlans.length +
    c.events.length ===
  0;

/** What a depositor's cover depends on: a change to any of these is news to the change stream. */
const DGS_TERMS = ['dgsScheme', 'dgsCountry', 'dgsLimit', 'dgsVerified'] as const;
/**
 * Where and when the terms were last checked. A real source re-verifies often: a new verifiedAt (or
 * register URL) alone updates the institution but alerts nobody (issue 19).
 */
const DGS_FIELDS = [...DGS_TERMS, 'dgsSource', 'dgsVerifiedAt'] as const;
const dgsKey = (f: (typeof DGS_FIELDS)[number]) => f.slice(3, 4).toLowerCase() + f.slice(4);

function dgsChange(prev: InstitutionRow, next: InstitutionRow, at: string): NewEvent | null {
  if (DGS_TERMS.every((f) => prev[f] === next[f])) return null;
  // The event shows everything that moved with the terms, a new verifiedAt included.
  const changed = DGS_FIELDS.filter((f) => prev[f] !== next[f]);
  const from = Object.fromEntries(changed.map((f) => [dgsKey(f), prev[f]]));
  const to = Object.fromEntries(changed.map((f) => [dgsKey(f), next[f]]));
  const what =
    prev.dgsVerified !== next.dgsVerified
      ? `deposit guarantee ${next.dgsVerified ? 'now verified' : 'no longer verified'}`
      : `deposit guarantee details changed (${changed.map(dgsKey).join(', ')})`;
  return {
    kind: 'dgs_change',
    at,
    offerId: null,
    brandId: null,
    institutionId: next.id,
    summary: `${next.name}: ${what}`,
    from,
    to,
  };
}

/**
 * An offer that now belongs to another institution (moved to a brand of another institution, or its
 * brand moved): its deposit guarantee is now that institution's, and a saver's money there counts
 * toward one limit with whatever else they hold at that institution. News to its followers, as a
 * dgs_change of the offer: `from` and `to` hold the institution, the brand when it changed, and the
 * guarantee's terms that differ.
 */
function guaranteeMove(
  offerId: string,
  label: string,
  brands: { prev: BrandRow; next: BrandRow },
  institutions: { prev: InstitutionRow; next: InstitutionRow },
  at: string,
): NewEvent {
  const { prev, next } = institutions;
  const terms = DGS_TERMS.filter((f) => prev[f] !== next[f]);
  const side = (brand: BrandRow, institution: InstitutionRow) => ({
    institutionId: institution.id,
    ...(brands.prev.id !== brands.next.id ? { brandId: brand.id } : {}),
    ...Object.fromEntries(terms.map((f) => [dgsKey(f), institution[f]])),
  });
  const guarantee = `${next.dgsScheme}, up to ${next.dgsLimit}${next.dgsVerified ? '' : ', not verified'}`;
  return {
    kind: 'dgs_change',
    at,
    offerId,
    brandId: brands.next.id,
    institutionId: next.id,
    summary: `${label}: now offered by ${next.name} (was ${prev.name}); deposit guarantee ${guarantee}`,
    from: side(brands.prev, prev),
    to: side(brands.next, next),
  };
}

const pct = (rate: string) => `${rate} %`;
const describePromotion = (p: NonNullable<PlanTerms['promotion']>) =>
  `${p.kind === 'bonus' ? `+${p.rate} points` : `${p.rate} % instead of the base rate`} for ${p.months} months` +
  `${p.maxBalance ? ` up to ${p.maxBalance}` : ''}`;

function planEvents(
  prev: PlanTerms,
  next: PlanTerms,
  base: Omit<NewEvent, 'kind' | 'summary' | 'from' | 'to'>,
  label: string,
): NewEvent[] {
  const events: NewEvent[] = [];
  if (prev.headlineRate !== next.headlineRate) {
    const up = new Decimal(next.headlineRate).gt(prev.headlineRate);
    events.push({
      ...base,
      kind: up ? 'rate_up' : 'rate_down',
      summary:
        `${label}: headline rate ${up ? 'up' : 'down'} ` +
        `from ${pct(prev.headlineRate)} to ${pct(next.headlineRate)}`,
      from: { headlineRate: prev.headlineRate },
      to: { headlineRate: next.headlineRate },
    });
  }
  if (!prev.promotion && next.promotion) {
    events.push({
      ...base,
      kind: 'promotion_start',
      summary: `${label}: promotion started, ${describePromotion(next.promotion)}`,
      from: { promotion: null },
      to: { promotion: next.promotion },
    });
  }
  if (prev.promotion && !next.promotion) {
    events.push({
      ...base,
      kind: 'promotion_end',
      summary: `${label}: promotion ended`,
      from: { promotion: prev.promotion },
      to: { promotion: null },
    });
  }
  return events;
}

export function diffSnapshot(state: CurrentState, snapshot: Snapshot): ChangeSet {
  const at = iso(snapshot.observedAt);
  const changes: ChangeSet = {
    sources: [],
    institutions: [],
    brands: [],
    offers: [],
    freshness: [],
    closePlans: [],
    newPlans: [],
    events: [],
  };

  for (const s of snapshot.sources) {
    const prev = state.sources.get(s.id);
    const next = sourceRow(s, at, prev);
    if (!prev || !sameRow(prev, next)) changes.sources.push(next);
  }

  const institutions = new Map(state.institutions);
  for (const i of snapshot.institutions) {
    const prev = state.institutions.get(i.id);
    const next = institutionRow(i);
    institutions.set(i.id, next);
    if (prev && sameRow(prev, next)) continue;
    changes.institutions.push(next);
    const event = prev && dgsChange(prev, next, at);
    if (event) changes.events.push(event);
  }

  const brands = new Map(state.brands);
  for (const b of snapshot.brands) {
    const prev = state.brands.get(b.id);
    const next = brandRow(b);
    brands.set(b.id, next);
    if (!prev || !sameRow(prev, next)) changes.brands.push(next);
  }

  const eventBase = (offer: OfferRow) => ({
    at,
    offerId: offer.id,
    brandId: offer.brandId,
    institutionId: brands.get(offer.brandId)?.institutionId ?? null,
  });
  const label = (offer: OfferRow) => `${brands.get(offer.brandId)?.name ?? offer.brandId} ${offer.name}`;
  /** The offer's guarantee moved with it to another institution (see guaranteeMove). */
  const moved = (prev: OfferRow, next: OfferRow) => {
    const before = state.brands.get(prev.brandId);
    const after = brands.get(next.brandId);
    const from = before && state.institutions.get(before.institutionId);
    const to = after && institutions.get(after.institutionId);
    if (from && to && from.id !== to.id)
      changes.events.push(
        guaranteeMove(next.id, label(next), { prev: before, next: after }, { prev: from, next: to }, at),
      );
  };
  const appendPlan = (offer: OfferRow, terms: PlanTerms) =>
    changes.newPlans.push({ ...terms, offerId: offer.id, validFrom: at, observedAt: at, sourceId: offer.sourceId });

  const seen = new Set<string>();
  for (const o of snapshot.offers) {
    seen.add(o.id);
    const prev = state.offers.get(o.id);
    const next = offerRow(o, at, prev);
    const terms = planTerms(o.plan);
    if (!prev || !sameRow(prev, next, OFFER_FIELDS_BUT_FRESHNESS)) changes.offers.push(next);
    else if (!sameRow(prev, next, FRESHNESS_FIELDS))
      changes.freshness.push({
        id: next.id,
        checkedAt: next.checkedAt,
        official: next.official,
        confirmed: next.confirmed,
      });

    const current = state.currentPlans.get(o.id);
    if (!prev || prev.status === 'removed' || !current) {
      // New, or back after removal (its last plan was closed then): the market gains an offer.
      appendPlan(next, terms);
      changes.events.push({
        ...eventBase(next),
        kind: 'new_offer',
        summary: `${label(next)}: ${prev ? 'offered again' : 'new offer'} at ${pct(terms.headlineRate)}`,
        from: null,
        to: { headlineRate: terms.headlineRate, promotion: terms.promotion },
      });
      continue;
    }
    moved(prev, next);
    const currentTerms = planTerms(current);
    if (sameRow(currentTerms, terms)) continue;
    changes.closePlans.push(current.id);
    appendPlan(next, terms);
    changes.events.push(...planEvents(currentTerms, terms, eventBase(next), label(next)));
  }

  // An offer not in a partial snapshot keeps its brand, which may have moved to another institution.
  if (!snapshot.complete)
    for (const prev of state.offers.values()) if (prev.status === 'active' && !seen.has(prev.id)) moved(prev, prev);

  if (snapshot.complete) {
    const missing = [...state.offers.values()]
      .filter((o) => o.status === 'active' && !seen.has(o.id))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const prev of missing) {
      const current = state.currentPlans.get(prev.id);
      changes.offers.push({ ...prev, status: 'removed', removedAt: at });
      if (current) changes.closePlans.push(current.id);
      changes.events.push({
        ...eventBase(prev),
        kind: 'removed_offer',
        summary: `${label(prev)}: offer removed`,
        from: current ? { headlineRate: current.headlineRate } : null,
        to: null,
      });
    }
  }
  return changes;
}

/** The state after a change set was committed; `planIds` are the ids the database gave the new plans. */
export function nextState(state: CurrentState, changes: ChangeSet, planIds: ReadonlyMap<string, number>): CurrentState {
  const sources = new Map(state.sources);
  const institutions = new Map(state.institutions);
  const brands = new Map(state.brands);
  const offers = new Map(state.offers);
  const currentPlans = new Map(state.currentPlans);
  for (const row of changes.sources) sources.set(row.id, row);
  for (const row of changes.institutions) institutions.set(row.id, row);
  for (const row of changes.brands) brands.set(row.id, row);
  for (const row of changes.offers) offers.set(row.id, row);
  for (const f of changes.freshness) offers.set(f.id, { ...offers.get(f.id)!, ...f });
  const closed = new Set(changes.closePlans);
  for (const [offerId, plan] of currentPlans) if (closed.has(plan.id)) currentPlans.delete(offerId);
  for (const p of changes.newPlans) {
    const id = planIds.get(p.offerId);
    if (id === undefined) throw new Error(`no id for the new plan of ${p.offerId}`);
    currentPlans.set(p.offerId, { ...p, id, validTo: null });
  }
  return { sources, institutions, brands, offers, currentPlans };
}
