// The attribute filters of contract §4 step 2, grouped so that facets can leave one group out.
// Each offer gets a bit mask of the groups it fails; 0 means it passes every filter.
import { LRUCache } from 'lru-cache';
import { checkedInLast24h } from './freshness.js';
import type { ProductQuery } from './query.js';
import { fold } from '../domain/text.js';
import type { Catalog, CatalogOffer } from './types.js';

export const F = {
  type: 1 << 0,
  term: 1 << 1,
  channel: 1 << 2,
  country: 1 << 3,
  dgsCountry: 1 << 4,
  payout: 1 << 5,
  withholding: 1 << 6,
  /**
   * everything else: promotions=only, newCustomers, currentAccount, fees, earlyWithdrawal, noticeMax, freshness, brand,
   * zoek
   */
  other: 1 << 7,
} as const;

/**
 * What `compileFilters` reads of a query, as a key: two queries with the same key fail the same offers
 * of a catalogue, whatever their amounts, horizons, sorts and pages. null when a filter reads the time
 * (freshness=24h), which no key holds.
 */
export function filterKey(q: ProductQuery): string | null {
  if (q.freshness === '24h') return null;
  // every field read below, in one order; JSON keeps lists and texts apart from their separators
  return JSON.stringify([
    q.type,
    q.terms,
    q.termMin,
    q.termMax,
    q.channel,
    q.country,
    q.dgsCountry,
    q.payout,
    q.withholding,
    q.promotions === 'only',
    q.newCustomers,
    q.currentAccount,
    q.fees,
    q.earlyWithdrawal,
    q.noticeMax,
    q.freshness,
    q.brand === null ? null : fold(q.brand),
    q.zoek === null ? null : fold(q.zoek),
  ]);
}

/** Compiles a query into one function from offer to failure mask (done once per request). */
export function compileFilters(q: ProductQuery, now: Date): (offer: CatalogOffer) => number {
  const terms = q.terms && new Set(q.terms);
  const countries = q.country && new Set(q.country);
  const dgsCountries = q.dgsCountry && new Set(q.dgsCountry);
  const payouts = q.payout && new Set(q.payout);
  const brand = q.brand === null ? null : fold(q.brand);
  const zoek = q.zoek === null ? null : fold(q.zoek);

  const failsOther = (o: CatalogOffer): boolean =>
    (q.promotions === 'only' && o.promotion === null) ||
    (q.newCustomers === 'yes' && !o.openToNewCustomers) ||
    (q.newCustomers === 'no' && o.openToNewCustomers) ||
    (q.currentAccount === 'no' && o.currentAccountRequired) ||
    (q.fees === 'none' && !o.annualFee.isZero()) ||
    (q.earlyWithdrawal === 'allowed' && o.type === 'deposit' && !o.earlyWithdrawal) ||
    (q.noticeMax !== null && o.type === 'notice' && (o.noticeDays ?? 0) > q.noticeMax) ||
    (q.freshness === '24h' && !checkedInLast24h(o.freshness.checkedAt, now)) ||
    (q.freshness === 'official' && !o.freshness.official) ||
    (q.freshness === 'confirmed' && !o.freshness.confirmed) ||
    (brand !== null && fold(o.brand.id) !== brand && fold(o.brand.name) !== brand) ||
    (zoek !== null && !o.searchText.includes(zoek));

  // Terms apply to deposits only: flexible and notice offers pass them.
  const failsTerm = (o: CatalogOffer): boolean => {
    if (o.type !== 'deposit' || o.termMonths === null) return false;
    const t = o.termMonths;
    return (
      (terms !== null && !terms.has(t)) ||
      (q.termMin !== null && t < q.termMin) ||
      (q.termMax !== null && t > q.termMax)
    );
  };

  return (o) =>
    (q.type !== 'all' && o.type !== q.type ? F.type : 0) |
    (failsTerm(o) ? F.term : 0) |
    (q.channel !== 'all' && o.channel !== q.channel ? F.channel : 0) |
    (countries !== null && !countries.has(o.brand.country) ? F.country : 0) |
    (dgsCountries !== null && !dgsCountries.has(o.institution.dgs.country) ? F.dgsCountry : 0) |
    (payouts !== null && !payouts.has(o.payout) ? F.payout : 0) |
    (q.withholding !== 'all' && o.withholding.kind !== q.withholding ? F.withholding : 0) |
    (failsOther(o) ? F.other : 0);
}

/**
 * Per catalogue, the failure masks (one byte an offer) of the filter sets asked last, by `filterKey`: a
 * saver, or a site, asks the same filters at one amount after another, and the masks do not depend on
 * the amount. Held with the catalogue; at most MASK_SETS of them, the least recently asked let go.
 */
const masksByCatalog = new WeakMap<Catalog, LRUCache<string, Uint8Array>>();
const MASK_SETS = 32;

export function keptMasks(catalog: Catalog, key: string | null): Uint8Array | undefined {
  return key === null ? undefined : masksByCatalog.get(catalog)?.get(key);
}

export function keepMasks(catalog: Catalog, key: string | null, masks: Uint8Array): void {
  if (key === null) return;
  let kept = masksByCatalog.get(catalog);
  if (!kept) masksByCatalog.set(catalog, (kept = new LRUCache({ max: MASK_SETS })));
  kept.set(key, masks);
}
