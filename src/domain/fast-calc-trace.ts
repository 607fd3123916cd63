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

/**
 * Where a trace stands before month `month`: its pairs and what it has added to its bounds for the current
 * balance. Every amount within the bounds added so far has the same (the pairs depend on the regimes only),
 * so another amount there may go on from it; its balance is then s·A + t at that amount.
 */
export interface TraceState extends AffineRun {
  month: number;
  bs: Decimal;
  bt: Decimal;
  exact: boolean;
  accS: Decimal;
  accT: Decimal;
  tierDone: number;
  capDone: boolean;
}

/** An offer's run, and the run with interest compounded where its own does not compound (contract §2). */
export interface TracedRuns {
  actual: TraceState;
  comparable: TraceState | null;
}

/**
 * Both runs a piece needs, into the same bounds, from month 1 or going on from `from` (see trace); null
 * where some month is not affine in B.
 */
export function traceRuns(c: Compiled, anchor: Decimal, bounds: Bounds, from?: TracedRuns): TracedRuns | null {
  const actual = trace(c, anchor, c.terms.interestCompounds, bounds, false, from?.actual);
  if (actual === null) return null;
  if (c.terms.interestCompounds) return { actual, comparable: null };
  const comparable = trace(c, anchor, true, bounds, false, from?.comparable ?? undefined);
  return comparable === null ? null : { actual, comparable };
}

/** Growth per period below this is left to the month-by-month loop: (αʲ − 1)/(α − 1) would lose digits. */
const LEAST_GROWTH = 1e-7;

/** Periods j ≥ 0 with B_j < top, from floats: B_j = αʲ·(B₀ + γ) − γ, γ = β/(α − 1) (B₀ + jβ when α = 1). */
function estimatePeriods(balance: Decimal, top: Decimal, rise: number, beta: number): number {
  const b0 = balance.toNumber();
  const h = top.toNumber();
  if (rise === 0) return beta > 0 ? Math.ceil((h - b0) / beta) : Infinity;
  const gamma = beta / rise;
  return b0 + gamma > 0 ? Math.ceil(Math.log((h + gamma) / (b0 + gamma)) / Math.log1p(rise)) : Infinity;
}

/**
 * How many of the first `periods` periods start below the top: the largest n ≤ periods with below(n − 1)
 * (below(0) holds, and below is true then false as the balance rises). Starts at the estimate, then
 * gallops and halves, so a good estimate costs two evaluations and a bad one a few more, never a wrong n.
 */
function periodsBelow(below: (j: number) => boolean, periods: number, estimate: number): number {
  const guess = Number.isFinite(estimate) ? Math.min(periods, Math.max(1, estimate)) : periods;
  // below(lo − 1) holds; below(hi − 1) does not, or hi = periods + 1
  let lo = 1;
  let hi = periods + 1;
  if (below(guess - 1)) lo = guess;
  else hi = guess;
  if (lo === guess && guess < periods) {
    if (!below(guess)) return guess;
    lo = guess + 1;
    for (let step = 2; lo + step - 1 < hi; step *= 2) {
      if (!below(lo + step - 1)) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (below(mid - 1)) lo = mid;
    else hi = mid;
  }
  return lo;
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
 * month's interval to `bounds`; null when some month is not affine in B. Starts at month 1, or goes on
 * from `from` (a state another trace of the same terms ended in, whose bounds hold the anchor); ends in
 * the state after the last month.
 *
 * Where the balance never falls (no rate below 0), a run of alike crediting periods in one regime (see
 * `alike`) is one step, a closed form (closedRun), and adds its interval once: the balance rises through
 * the run, so its first period holds its lower bounds and its last period its upper ones. A 600-month
 * horizon then costs a few dozen Decimal operations per regime it passes instead of a dozen per month.
 * Where the closed form would lose digits (growth below LEAST_GROWTH a period) the run accrues month by
 * month and still adds its interval once. `stepwise` turns runs off (the tests hold the two to 1e-24).
 */
export function trace(
  c: Compiled,
  anchor: Decimal,
  compounds: boolean,
  bounds: Bounds,
  stepwise = false,
  from?: TraceState,
): TraceState | null {
  let bs = from?.bs ?? ONE;
  let bt = from?.bt ?? ZERO;
  // While B is still exactly A, in the reference as here, its boundaries are exact.
  let exact = from?.exact ?? true;
  let balance = exact ? anchor : bs.times(anchor).plus(bt);
  let accS = from?.accS ?? ZERO;
  let accT = from?.accT ?? ZERO;
  let grossS = from?.grossS ?? ZERO;
  let grossT = from?.grossT ?? ZERO;
  let taxS = from?.taxS ?? ZERO;
  let taxT = from?.taxT ?? ZERO;
  let firstS = from?.firstS ?? ZERO;
  let firstT = from?.firstT ?? ZERO;
  // Constraints already added for the current B (it often stays put for months).
  let tierDone = from?.tierDone ?? -1;
  let capDone = from?.capDone ?? false;
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

  const keep = c.taxed ? ONE.minus(c.withholdingRate.div(HUNDRED)) : ONE;

  /**
   * A run of up to `periods` alike periods of `p` months in one regime, taken in one step (a closed form),
   * or null where it would not pay or would lose digits (the caller then goes month by month). Each period
   * maps the balance B to α·B + β (α = 1 + keep·p·a, β = keep·p·c, when interest compounds), so after j
   * periods B_j = αʲ·B₀ + β·(αʲ − 1)/(α − 1), and the run's interest is a geometric sum. It lasts while
   * B_j stays below `level` (where the regime ends), decided on the Decimals from a float estimate, so that
   * every amount with the same regimes takes the same steps and gets the same digits. Its digits are not
   * the month-by-month loop's, but agree with them to 1e-24 and more (src/domain/fast-calc-runs.test.ts).
   */
  const closedRun = (regime: Affine, p: number, periods: number, level: Decimal | null, start: number) => {
    if (periods * p < 3) return null;
    const u = regime.a.times(p); // a period's interest: u·B + v
    const v = regime.c.times(p);
    const grows = compounds && !(u.isZero() && v.isZero());
    const rise = grows ? keep.times(u) : ZERO; // α − 1
    const beta = grows ? keep.times(v) : ZERO;
    const riseN = rise.toNumber();
    // (αʲ − 1)/(α − 1) loses as many digits as α − 1 has leading zeros: below 1e-7, month by month.
    if (riseN !== 0 && riseN < LEAST_GROWTH) return null;
    const alpha = ONE.plus(rise);
    let count = periods;
    if (grows && level !== null) {
      const gamma = rise.isZero() ? null : beta.div(rise);
      const below = (j: number) =>
        gamma === null
          ? balance.plus(beta.times(j)).lt(level)
          : alpha.pow(j).times(balance.plus(gamma)).minus(gamma).lt(level);
      count = periodsBelow(below, periods, estimatePeriods(balance, level, riseN, beta.toNumber()));
    }
    if (count * p < 3) return null;
    // αʲ and Σ_{i<j} αⁱ for j = count − 1 (the last period's start) and for count.
    const powLast = rise.isZero() ? ONE : alpha.pow(count - 1);
    const sumLast = rise.isZero() ? new Decimal(count - 1) : powLast.minus(ONE).div(rise);
    const last = grows
      ? {
          lastS: bs.times(powLast),
          lastT: bt.times(powLast).plus(beta.times(sumLast)),
          lastExact: exact && count === 1,
        }
      : { lastS: bs, lastT: bt, lastExact: exact };
    const j = new Decimal(count);
    const pow = powLast.times(alpha);
    const sum = grows ? sumLast.times(alpha).plus(ONE) : j; // Σ_{i<count} αⁱ
    // Σ over the run of B_i = B₀·Σαⁱ + β·Σ(αⁱ − 1)/(α − 1)
    const sumBs = bs.times(sum);
    let sumBt = bt.times(sum);
    if (grows && !beta.isZero()) {
      const ramp = rise.isZero() ? j.times(count - 1).div(2) : sum.minus(j).div(rise);
      sumBt = sumBt.plus(beta.times(ramp));
    }
    const gs = u.times(sumBs);
    const gt = u.times(sumBt).plus(v.times(j));
    if (start === 1) {
      firstS = regime.a.times(bs);
      firstT = bt.isZero() ? regime.c : regime.a.times(bt).plus(regime.c);
    }
    grossS = grossS.plus(gs);
    grossT = grossT.plus(gt);
    if (c.taxed) {
      taxS = taxS.plus(gs.times(c.withholdingRate).div(HUNDRED));
      taxT = taxT.plus(gt.times(c.withholdingRate).div(HUNDRED));
    }
    if (grows) {
      bs = bs.times(pow);
      bt = bt.times(pow).plus(beta.times(sum));
      exact = false;
      balance = bs.times(anchor).plus(bt);
      tierDone = -1;
      capDone = false;
    }
    return { count, ...last };
  };

  /**
   * The same run month by month, with the general loop's operations (where closedRun would lose digits or
   * not pay): its periods from month `start` while the balance stays below `level`, the first always.
   */
  const stepRun = (regime: Affine, p: number, periods: number, level: Decimal | null, start: number) => {
    let [lastS, lastT, lastExact] = [bs, bt, exact];
    let count = 0;
    for (; count < periods && (count === 0 || level === null || balance.lt(level)); count++) {
      [lastS, lastT, lastExact] = [bs, bt, exact];
      for (let q = 0; q < p; q++) accrue(regime, start + count * p + q);
      credit();
    }
    return { count, lastS, lastT, lastExact };
  };

  const runs = !stepwise && c.neverFalls;
  for (let m = from?.month ?? 1; m <= c.months;) {
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
      const level = capped && !above && (next === null || c.cap!.lt(next)) ? c.cap! : next;
      const run = closedRun(regime, p, periods, level, m) ?? stepRun(regime, p, periods, level, m);
      m += run.count * p;
      if (top !== null) bounds.lowerHi(at(top, run.lastS, run.lastT, run.lastExact), run.lastExact);
      if (capped && !above) bounds.lowerHi(at(c.cap!, run.lastS, run.lastT, run.lastExact), run.lastExact);
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
  return {
    month: c.months + 1,
    bs,
    bt,
    exact,
    accS,
    accT,
    tierDone,
    capDone,
    firstS,
    firstT,
    grossS,
    grossT,
    taxS,
    taxT,
  };
}
