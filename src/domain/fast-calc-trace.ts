// An offer's terms compiled per month (its regimes), and one pass of the §2 loop with every quantity held
// as an affine pair (s, t) of the amount: the coefficients of a piece and the interval of amounts it
// covers. What a piece then answers, and where it falls back to the reference: fast-calc-pieces.ts and
// fast-calc.ts.
import { Decimal, HUNDRED, ZERO } from './decimal.js';
import { creditsInMonth, feesFor, withPromotions } from './calc.js';
import type { CalcTerms, PromotionsMode } from './types.js';

const ONE = new Decimal(1);
const TWELVE_HUNDRED = new Decimal(1200);

/** interest = a·B + c within one regime. */
export interface Affine {
  a: Decimal;
  c: Decimal;
}

/** What a key's terms turn into once: per-tier coefficients and the crediting calendar. */
export interface Compiled {
  terms: CalcTerms;
  months: number;
  mode: PromotionsMode;
  from: Decimal[];
  to: (Decimal | null)[];
  base: Affine[];
  /** Months 1..promotionMonths run the promotion (0: none). */
  promotionMonths: number;
  cap: Decimal | null;
  /** Per tier, with the promotion running and B below maxBalance (or no maxBalance). */
  promoted: Affine[];
  /** Per tier, with the promotion running and B at or above maxBalance; null where not affine. */
  capped: (Affine | null)[];
  withholdingRate: Decimal;
  taxed: boolean;
  fees: Decimal;
  promotionApplied: boolean;
  /**
   * Per month that starts a crediting period: how many periods in a row from there have its length and
   * lie wholly inside or wholly after the promotion (0: this one straddles the promotion's end, or the
   * month starts no period). What `trace` may take as one run.
   */
  alike: number[];
  /** Per month: the month that credits what it accrues (the next credit month; a credit month is its own). */
  creditAt: number[];
  /**
   * No rate below 0 and withholding within 0–100 %: a balance in a regime then never falls, so a run of
   * alike periods keeps to its first period's lower bounds and its last period's upper bounds.
   */
  neverFalls: boolean;
}

export function compile(terms: CalcTerms, months: number, mode: PromotionsMode): Compiled {
  const from = terms.tiers.map((t) => t.from);
  const to = terms.tiers.map((t) => t.to);
  const base: Affine[] = [];
  let below = ZERO; // marginal: the interest of all full tiers below the current one
  terms.tiers.forEach((tier, k) => {
    const a = tier.rate.div(TWELVE_HUNDRED);
    const c = terms.tierMode === 'whole' || k === 0 ? ZERO : below.minus(tier.from.times(a));
    base.push({ a, c });
    if (tier.to !== null) below = below.plus(tier.to.minus(tier.from).times(a));
  });
  const promotion = withPromotions(mode) ? terms.promotion : null;
  const promoted: Affine[] = [];
  const capped: (Affine | null)[] = [];
  const cap = promotion?.maxBalance ?? null;
  if (promotion !== null) {
    const p = promotion.rate.div(TWELVE_HUNDRED);
    for (const { a, c } of base) {
      if (promotion.kind === 'bonus') {
        promoted.push({ a: a.plus(p), c });
        capped.push(cap === null ? null : { a, c: c.plus(cap.times(p)) });
      } else {
        promoted.push({ a: p, c: ZERO });
        // base(B)·(B − cap)/B is affine only when base(B) is proportional to B (c = 0).
        capped.push(cap === null || !c.isZero() ? null : { a, c: cap.times(p).minus(a.times(cap)) });
      }
    }
  }
  const promotionMonths = promotion === null ? 0 : Math.min(promotion.months, months);
  const creditAt = new Array<number>(months + 2).fill(0);
  for (let m = months; m >= 1; m--) creditAt[m] = creditsInMonth(terms.payout, m, months) ? m : creditAt[m + 1]!;
  const alike = new Array<number>(months + 2).fill(0);
  const starts: number[] = [];
  for (let m = 1; m <= months; m = creditAt[m]! + 1) starts.push(m);
  for (let i = starts.length - 1; i >= 0; i--) {
    const s = starts[i]!;
    const end = creditAt[s]!;
    const promoted = s <= promotionMonths;
    if (promoted && end > promotionMonths) continue; // straddles the promotion's end
    const next = starts[i + 1];
    const sameNext = next !== undefined && creditAt[next]! - next === end - s && next <= promotionMonths === promoted;
    alike[s] = 1 + (sameNext ? alike[next]! : 0);
  }
  const nonNegative = (r: Decimal) => !r.isNegative() || r.isZero();
  const neverFalls =
    terms.tiers.every((t) => nonNegative(t.rate)) &&
    (promotion === null || nonNegative(promotion.rate)) &&
    nonNegative(terms.withholdingRate) &&
    terms.withholdingRate.lte(HUNDRED);
  return {
    alike,
    creditAt,
    neverFalls,
    terms,
    months,
    mode,
    from,
    to,
    base,
    promotionMonths,
    cap,
    promoted,
    capped,
    withholdingRate: terms.withholdingRate,
    taxed: !terms.withholdingRate.isZero(),
    fees: feesFor(terms.annualFee, months),
    promotionApplied: promotionMonths > 0,
  };
}

/** The interval of amounts a piece covers: [lo, hi), null for unbounded. */
export class Bounds {
  lo: Decimal | null = null;
  loExact = true;
  hi: Decimal | null = null;
  hiExact = true;

  raiseLo(x: Decimal, exact: boolean): void {
    if (this.lo === null || x.gt(this.lo)) {
      this.lo = x;
      this.loExact = exact;
    } else if (x.eq(this.lo)) this.loExact &&= exact;
  }

  lowerHi(x: Decimal, exact: boolean): void {
    if (this.hi === null || x.lt(this.hi)) {
      this.hi = x;
      this.hiExact = exact;
    } else if (x.eq(this.hi)) this.hiExact &&= exact;
  }
}

/** A run's totals as affine functions of A: value = s·A + t. */
export interface AffineRun {
  firstS: Decimal;
  firstT: Decimal;
  grossS: Decimal;
  grossT: Decimal;
  taxS: Decimal;
  taxT: Decimal;
}

function tierIndex(from: readonly Decimal[], balance: Decimal): number {
  let k = -1;
  for (let i = 0; i < from.length; i++) {
    if (balance.gte(from[i]!)) k = i;
    else break;
  }
  return k;
}

/**
 * The §2 loop with every quantity held as (s, t), its regimes read off at `anchor`. Adds each
 * month's interval to `bounds`; null when some month is not affine in B.
 *
 * Where the balance never falls (no rate below 0), a run of alike crediting periods in one regime (see
 * `alike`) adds its interval once: the balance rises through the run, so its first period holds its
 * lower bounds and its last period its upper ones, and the months between would only repeat them. The
 * affine pairs are still accrued month by month, with the same operations as the general loop, so they
 * have the same digits: only the bounds' work (two Decimal divisions a month once interest compounds)
 * and the regime lookups are saved. `stepwise` turns this off (the tests hold the two equal).
 */
export function trace(
  c: Compiled,
  anchor: Decimal,
  compounds: boolean,
  bounds: Bounds,
  stepwise = false,
): AffineRun | null {
  let bs = ONE;
  let bt = ZERO;
  // While B is still exactly A, in the reference as here, its boundaries are exact.
  let exact = true;
  let balance = anchor;
  let accS = ZERO;
  let accT = ZERO;
  let grossS = ZERO;
  let grossT = ZERO;
  let taxS = ZERO;
  let taxT = ZERO;
  let firstS = ZERO;
  let firstT = ZERO;
  // Constraints already added for the current B (it often stays put for months).
  let tierDone = -1;
  let capDone = false;
  /** The amount at which B = s·A + t reaches the level (the level itself while B is still A). */
  const at = (level: Decimal, s = bs, t = bt, exactly = exact) => (exactly ? level : level.minus(t).div(s));

  /** Month m's interest in the regime, accrued. */
  const accrue = (regime: Affine, m: number) => {
    const is = regime.a.times(bs);
    const it = bt.isZero() ? regime.c : regime.a.times(bt).plus(regime.c);
    if (m === 1) {
      firstS = is;
      firstT = it;
    }
    accS = accS.plus(is);
    accT = accT.plus(it);
    grossS = grossS.plus(is);
    grossT = grossT.plus(it);
  };

  /** What has accrued is credited: withheld, then added to the balance when interest compounds. */
  const credit = () => {
    let netS = accS;
    let netT = accT;
    if (c.taxed) {
      const keptS = accS.times(c.withholdingRate).div(HUNDRED);
      const keptT = accT.times(c.withholdingRate).div(HUNDRED);
      taxS = taxS.plus(keptS);
      taxT = taxT.plus(keptT);
      netS = accS.minus(keptS);
      netT = accT.minus(keptT);
    }
    if (compounds && !(netS.isZero() && netT.isZero())) {
      bs = bs.plus(netS);
      bt = bt.plus(netT);
      exact = false;
      balance = bs.times(anchor).plus(bt);
      tierDone = -1;
      capDone = false;
    }
    accS = ZERO;
    accT = ZERO;
  };

  const runs = !stepwise && c.neverFalls;
  for (let m = 1; m <= c.months;) {
    const k = tierIndex(c.from, balance);
    if (k < 0) return null;
    let regime: Affine | null;
    const promoted = m <= c.promotionMonths;
    const capped = promoted && c.cap !== null;
    const above = capped && balance.gte(c.cap!);
    if (!promoted) regime = c.base[k]!;
    else if (above) regime = c.capped[k]!;
    else regime = c.promoted[k]!;
    if (regime === null) return null;
    if (!bs.isPositive() || bs.isZero()) return null;

    const periods = runs ? c.alike[m]! : 0;
    if (periods >= 2) {
      const p = c.creditAt[m]! - m + 1;
      bounds.raiseLo(at(c.from[k]!), exact);
      if (above) bounds.raiseLo(at(c.cap!), exact);
      const next = c.from[k + 1] ?? null;
      const top = c.to[k] ?? null;
      // Until the anchor's balance rises out of the regime: into the next tier, or over the cap. It never
      // falls, so a balance read a sliver under its tier or the cap is rounding (a balance that earns
      // nothing, left on the bound), and the run keeps its regime: which amount built the piece then
      // does not decide the regime sequence, nor the digits.
      const stays = () => (next === null || balance.lt(next)) && (!capped || above || balance.lt(c.cap!));
      let lastS = bs;
      let lastT = bt;
      let lastExact = exact;
      for (let j = 0; j < periods && (j === 0 || stays()); j++) {
        lastS = bs;
        lastT = bt;
        lastExact = exact;
        for (let q = 0; q < p; q++) accrue(regime, m + q);
        credit();
        m += p;
      }
      if (top !== null) bounds.lowerHi(at(top, lastS, lastT, lastExact), lastExact);
      if (capped && !above) bounds.lowerHi(at(c.cap!, lastS, lastT, lastExact), lastExact);
      continue;
    }

    if (tierDone !== k || (capped && !capDone)) {
      if (tierDone !== k) {
        bounds.raiseLo(at(c.from[k]!), exact);
        const top = c.to[k];
        if (top !== null && top !== undefined) bounds.lowerHi(at(top), exact);
        tierDone = k;
      }
      if (capped && !capDone) {
        if (above) bounds.raiseLo(at(c.cap!), exact);
        else bounds.lowerHi(at(c.cap!), exact);
        capDone = true;
      }
    }
    accrue(regime, m);
    if (c.creditAt[m] === m) credit();
    m++;
  }
  return { firstS, firstT, grossS, grossT, taxS, taxT };
}
