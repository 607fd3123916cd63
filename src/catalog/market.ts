// The market view (GET /api/rates/history?view=market): per day, the best headline rate per
// category among the plans valid at the end of that day, of offers whose institution's DGS was
// verified then. Pure: plans and DGS history in, days out.
import type { Decimal } from '../domain/decimal.js';
import { DAY_MS } from '../domain/days.js';
import type { OfferType } from '../domain/types.js';

export const MARKET_CATEGORIES = ['flexible', 'notice', 'deposit12', 'deposit60'] as const;
export type MarketCategory = (typeof MARKET_CATEGORIES)[number];

export interface MarketPlan {
  type: OfferType;
  termMonths: number | null;
  institutionId: string;
  validFrom: Date;
  validTo: Date | null;
  headlineRate: Decimal;
}

/** A change of an institution's verified flag, from its dgs_change event. */
export interface VerifiedChange {
  institutionId: string;
  at: Date;
  verified: boolean;
}

/** The best headline rate per category (null: no offer of it); the list's market summary shows the last day's. */
export interface MarketBest {
  flexible: Decimal | null;
  notice: Decimal | null;
  deposit12: Decimal | null;
  deposit60: Decimal | null;
}

export interface MarketDay extends MarketBest {
  date: string;
}

/** The deposit terms the market view follows, each a category of its own. */
export const MARKET_DEPOSIT_TERMS = { deposit12: 12, deposit60: 60 } as const;

export function categoryOf(plan: Pick<MarketPlan, 'type' | 'termMonths'>): MarketCategory | null {
  if (plan.type === 'flexible' || plan.type === 'notice') return plan.type;
  if (plan.termMonths === MARKET_DEPOSIT_TERMS.deposit12) return 'deposit12';
  if (plan.termMonths === MARKET_DEPOSIT_TERMS.deposit60) return 'deposit60';
  return null;
}

/** Day-index intervals [from, to] (inclusive) during which each institution's DGS counted as verified. */
function verifiedIntervals(
  institutionIds: Iterable<string>,
  currentlyVerified: (id: string) => boolean,
  changes: readonly VerifiedChange[],
  dayEnd: (i: number) => number,
  days: number,
): Map<string, [number, number][]> {
  const byInstitution = new Map<string, VerifiedChange[]>();
  for (const c of changes) byInstitution.set(c.institutionId, [...(byInstitution.get(c.institutionId) ?? []), c]);
  const result = new Map<string, [number, number][]>();
  for (const id of institutionIds) {
    const own = (byInstitution.get(id) ?? []).sort((a, b) => a.at.getTime() - b.at.getTime());
    // The flag at an instant: after the last change up to then; before the first change, the
    // opposite of what that change set it to; without changes, as it is now.
    const verifiedAt = (t: number): boolean => {
      let state: boolean | null = null;
      for (const c of own) if (c.at.getTime() <= t) state = c.verified;
      if (state !== null) return state;
      return own.length > 0 ? !own[0]!.verified : currentlyVerified(id);
    };
    const intervals: [number, number][] = [];
    for (let i = 0; i < days; i++) {
      if (!verifiedAt(dayEnd(i))) continue;
      const last = intervals[intervals.length - 1];
      if (last && last[1] === i - 1) last[1] = i;
      else intervals.push([i, i]);
    }
    result.set(id, intervals);
  }
  return result;
}

/**
 * The `days` days ending with `endDay` (YYYY-MM-DD), oldest first. Each category is filled from the
 * highest rate down, each plan claiming the days it covers that no better plan claimed: linear in
 * plans and days, however long the window.
 */
export function marketDays(
  plans: readonly MarketPlan[],
  dgs: { currentlyVerified: (institutionId: string) => boolean; changes: readonly VerifiedChange[] },
  endDay: string,
  days: number,
): MarketDay[] {
  const endMs = Date.parse(`${endDay}T00:00:00.000Z`);
  const firstMs = endMs - (days - 1) * DAY_MS;
  const dayEnd = (i: number) => firstMs + (i + 1) * DAY_MS;
  const verified = verifiedIntervals(
    new Set(plans.map((p) => p.institutionId)),
    dgs.currentlyVerified,
    dgs.changes,
    dayEnd,
    days,
  );

  const best = Object.fromEntries(
    MARKET_CATEGORIES.map((c) => [c, new Array<Decimal | null>(days).fill(null)]),
  ) as Record<MarketCategory, (Decimal | null)[]>;
  for (const category of MARKET_CATEGORIES) {
    const own = plans.filter((p) => categoryOf(p) === category).sort((a, b) => b.headlineRate.cmp(a.headlineRate));
    const next = Int32Array.from({ length: days + 1 }, (_, i) => i); // next unclaimed day at or after i
    const find = (i: number): number => {
      let root = i;
      while (next[root] !== root) root = next[root]!;
      while (next[i] !== root) {
        const up = next[i]!;
        next[i] = root; // path compression
        i = up;
      }
      return root;
    };
    for (const plan of own) {
      // Valid at the end of day i: validFrom ≤ end(i) < validTo.
      const from = Math.max(0, Math.ceil((plan.validFrom.getTime() - firstMs) / DAY_MS) - 1);
      const to = Math.min(
        days - 1,
        plan.validTo === null ? days - 1 : Math.ceil((plan.validTo.getTime() - firstMs) / DAY_MS) - 2,
      );
      for (const [vFrom, vTo] of verified.get(plan.institutionId) ?? []) {
        const lo = Math.max(from, vFrom);
        const hi = Math.min(to, vTo);
        for (let d = find(lo); d <= hi; d = find(d + 1)) {
          best[category][d] = plan.headlineRate;
          next[d] = d + 1;
        }
      }
    }
  }
  return Array.from({ length: days }, (_, i) => ({
    date: new Date(firstMs + i * DAY_MS).toISOString().slice(0, 10),
    flexible: best.flexible[i] ?? null,
    notice: best.notice[i] ?? null,
    deposit12: best.deposit12[i] ?? null,
    deposit60: best.deposit60[i] ?? null,
  }));
}
