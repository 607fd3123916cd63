// What a list needs of an evicted piece to rank its offer: the piece's safe interval and its four ratios as
// floats, 48 bytes where the piece is ≈3 KB. Flexible and notice accounts are calculated per horizon, and
// a client moving the horizon asks each of ~120 of them; the pieces of one horizon are evicted long before
// it comes back, and every list at it traced all of them again (about half of such a list's CPU). From these, a
// list ranks those offers as it would from the pieces (rough.ts), and traces a piece only for the offers it
// shows or whose order is a close call, as it does for pieces still kept.
//
// Why the answers are the same: the floats are the very ones the piece holds (roughNumber of its ratios),
// and the yields are made from them by the same function the piece's ranking uses (roughAffineYield: for a
// constant ratio, t = 0, it is exactly the piece's roughYield), so every float decision is the one the
// piece would have made, and the exact values are worked out from a piece traced again, which has the same
// digits. Where the piece would have worked a yield out in decimals (a float with no bound: NaN), or the
// amount is near a bound, the shadow does not answer and the piece is traced.
import { roughNumber } from './decimal.js';
import { sameMode, sameTerms, type Piece } from './fast-calc-pieces.js';
import { roughAffineYield } from './rough.js';
import type { CalcInput, CalcTerms, PromotionsMode } from './types.js';

/** Per shadow: safeLo, safeHi, comparableS, comparableT, netS, netT. */
const FIELDS = 6;
/**
 * An amount this close to a bound, relative, is not placed by floats: the amount's float and the bound's
 * (roughNumber) are within 2e-14 of them, relative.
 */
const BOUND_MARGIN = 1e-12;

/** The shadows of one calculation key, with what it was calculated for (a key with other terms has none). */
interface Group {
  key: string;
  terms: CalcTerms;
  months: number;
  mode: PromotionsMode;
  data: number[];
  /** Its place in `all`. */
  at: number;
}

export class Shadows {
  private readonly groups = new Map<string, Group>();
  // Every group, for eviction at random: a client moving the horizon asks them in cycles, and least
  // recently used order would drop each one just before its horizon comes back (as it did the pieces).
  private readonly all: Group[] = [];
  private count = 0;
  private seed = 1;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.count;
  }

  /** Keeps what ranks an evicted piece's offer (not for a piece that answers no amount itself: `unsafe`). */
  keep(key: string, piece: Piece): void {
    if (piece.unsafe || this.max <= 0) return;
    const c = piece.entry.compiled;
    let group = this.groups.get(key);
    if (
      group !== undefined &&
      (group.months !== c.months || !sameMode(group.mode, c.mode) || !sameTerms(group.terms, c.terms))
    ) {
      this.drop(group);
      group = undefined;
    }
    const lo = piece.safeLo === null ? -Infinity : roughNumber(piece.safeLo);
    const hi = piece.safeHi === null ? Infinity : roughNumber(piece.safeHi);
    const shadow = [lo, hi, piece.roughComparableS, piece.roughComparableT, piece.roughNetS, piece.roughNetT];
    if (group !== undefined) {
      const { data } = group;
      for (let i = 0; i < data.length; i += FIELDS) if (data[i] === lo && data[i + 1] === hi) return;
      // A new array of the exact length: push would leave room for a dozen more (≈140 bytes).
      group.data = data.concat(shadow);
    } else {
      group = { key, terms: c.terms, months: c.months, mode: c.mode, data: shadow, at: this.all.length };
      this.groups.set(key, group);
      this.all.push(group);
    }
    this.count++;
    // After either: a key's group grows with its pieces too. The one just kept may be the one that goes.
    while (this.count > this.max) this.drop(this.all[this.random(this.all.length)]!);
  }

  /**
   * The rough yields at an amount (`amount` and `inverse`: A and 1/A as floats), as the evicted piece would
   * give them; null where no shadow answers it.
   */
  rank(
    key: string,
    input: CalcInput,
    amount: number,
    inverse: number,
  ): { comparable: number; effective: number } | null {
    const group = this.groups.get(key);
    if (group === undefined) return null;
    if (group.months !== input.months || !sameMode(group.mode, input.promotions)) return null;
    if (group.terms !== input.terms) {
      if (!sameTerms(group.terms, input.terms)) return null;
      group.terms = input.terms; // equal content: the next check is one ===
    }
    const { data } = group;
    for (let i = 0; i < data.length; i += FIELDS) {
      const lo = data[i]!;
      const hi = data[i + 1]!;
      if (!(lo === -Infinity || amount - lo > BOUND_MARGIN * Math.max(Math.abs(amount), Math.abs(lo)))) continue;
      if (!(hi === Infinity || hi - amount > BOUND_MARGIN * Math.max(Math.abs(amount), Math.abs(hi)))) continue;
      const cS = data[i + 2]!;
      const cT = data[i + 3]!;
      const nS = data[i + 4]!;
      const nT = data[i + 5]!;
      const comparable = roughAffineYield(cS, cT, inverse, input.months);
      // No tax and no fees: the net ratio is the comparable one (the piece's sameRatio), one power for both.
      const effective = nS === cS && nT === cT ? comparable : roughAffineYield(nS, nT, inverse, input.months);
      return Number.isNaN(comparable) || Number.isNaN(effective) ? null : { comparable, effective };
    }
    return null;
  }

  clear(): void {
    this.groups.clear();
    this.all.length = 0;
    this.count = 0;
  }

  private drop(group: Group): void {
    const last = this.all.pop()!;
    if (last !== group) {
      this.all[group.at] = last;
      last.at = group.at;
    }
    this.groups.delete(group.key);
    this.count -= group.data.length / FIELDS;
  }

  /** An index below n: a linear congruential sequence (which one goes changes no answer, only what is kept). */
  private random(n: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed % n;
  }
}
