// Small random problems for the tests of the search's parts, the search spaces they make, and the
// exhaustive answers each part is checked against: every completion of a partial plan, every
// placement of a few stretches.
import fc from 'fast-check';
import { Decimal } from '../../decimal.js';
import { candidate, line, marginalTiers, wholeTiers } from '../../__tests__/plan-fixtures.js';
import { prepare, removeDominated } from '../candidates.js';
import type { PartialPlan } from '../partial.js';
import { limitsOf, spaceOf, type SearchSpace } from '../space.js';
import type { Cand, Chosen, PlanCandidate, PlanProblem } from '../types.js';

const rate = fc.integer({ min: -300, max: 1500 }).map((bp) => new Decimal(bp).div(10)); // € per unit a year

/** One candidate: a line, whole or marginal tiers, or a concave or convex curve, over a small domain. */
const candidateArb = (maxWidth: number) =>
  fc
    .record({
      kind: fc.constantFrom('line', 'whole', 'marginal', 'concave', 'convex'),
      group: fc.integer({ min: 0, max: 2 }),
      flexible: fc.boolean(),
      lo: fc.integer({ min: 1, max: 3 }),
      width: fc.integer({ min: 0, max: maxWidth }),
      rates: fc.array(rate, { minLength: 3, maxLength: 3 }),
      bound: fc.integer({ min: 2, max: 7 }),
      curvature: fc.integer({ min: 1, max: 40 }).map((c) => new Decimal(c).div(100)),
    })
    .map(({ kind, group, flexible, lo, width, rates, bound, curvature }) => (id: string): PlanCandidate => {
      const hi = lo + width;
      const [r0, r1] = [rates[0]!.toString(), rates[1]!.toString()];
      switch (kind) {
        case 'line':
          return line(id, group, r0, lo, hi, flexible);
        case 'whole':
          return wholeTiers(
            id,
            group,
            bound > lo && bound <= hi
              ? [
                  [lo, r0],
                  [bound, r1],
                ]
              : [[lo, r0]],
            hi,
            flexible,
          );
        case 'marginal':
          return marginalTiers(
            id,
            group,
            [
              [0, r0],
              [bound, r1],
            ],
            lo,
            hi,
            flexible,
          );
        default: {
          const sign = kind === 'concave' ? -1 : 1;
          const f = (k: number) => rates[0]!.times(k).plus(curvature.times(sign * k * k));
          return candidate(id, group, [{ lo, hi, f, shape: kind === 'concave' ? 'concave' : 'convex' }], flexible);
        }
      }
    });

/**
 * A problem of two to six candidates over three institutions, its limits small enough to enumerate.
 * `wide`: up to five candidates accepting up to 15 units each, at most three parts (the part count binds
 * where parts hold more than the smallest ones would).
 */
export const problemArb = (options: { placementOnly?: boolean; wide?: boolean } = {}) =>
  fc
    .record({
      makers: fc.array(candidateArb(options.wide ? 14 : 6), { minLength: 2, maxLength: options.wide ? 5 : 6 }),
      groupLimits: fc.array(fc.integer({ min: 1, max: options.wide ? 25 : 10 }), { minLength: 3, maxLength: 3 }),
      total: fc.integer({ min: 1, max: options.wide ? 40 : 20 }),
      maxParts: fc.integer({ min: 1, max: options.wide ? 3 : 4 }),
      reserve: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
    })
    .map(({ makers, groupLimits, total, maxParts, reserve }): PlanProblem => ({
      candidates: makers.map((make, i) => make(`c${i}`)),
      groupLimits,
      total,
      maxParts,
      maxNonFlexible: reserve === null ? total : Math.max(0, total - reserve),
      ...(options.placementOnly ? { placementOnly: true } : {}),
    }));

/** The space a search of the problem would work over (dominated candidates removed or not). */
export function spaceFor(problem: PlanProblem, removeDominatedToo = true): SearchSpace | null {
  const limits = limitsOf(problem);
  let cands = prepare(problem.candidates, limits);
  if (cands.length === 0) return null;
  if (removeDominatedToo) cands = removeDominated(cands, limits.maxParts);
  return spaceOf(cands, limits, problem.candidates.length);
}

/** The objective's value of k units of a candidate, in floating point (0 when only placement counts). */
export const valueOf = (space: SearchSpace, c: Cand, k: number): number =>
  space.limits.placementOnly ? 0 : c.src.value(k).toNumber();

/**
 * A partial plan the search could make, picked by `picks`: parts from positions before i, each in one
 * of its segments, kept only while their minimums fit every limit (as the search's own children).
 */
export function pickPartial(space: SearchSpace, plan: PartialPlan, i: number, picks: readonly number[]): void {
  const { cands, limits } = space;
  const parts: Chosen[] = [];
  let sumLo = 0;
  let sumLoFixed = 0;
  const groupLo = limits.groupLimits.map(() => 0);
  const used = new Set<number>();
  for (const pick of picks) {
    if (i === 0 || parts.length >= limits.maxParts) break;
    const j = pick % i;
    if (used.has(j)) continue;
    const cand = cands[j]!;
    const seg = cand.segs[Math.floor(pick / i) % cand.segs.length]!;
    if (groupLo[cand.group]! + seg.lo > limits.groupLimits[cand.group]! || sumLo + seg.lo > limits.total) continue;
    if (!cand.flexible && sumLoFixed + seg.lo > limits.maxNonFlexible) continue;
    used.add(j);
    groupLo[cand.group]! += seg.lo;
    sumLo += seg.lo;
    if (!cand.flexible) sumLoFixed += seg.lo;
    parts.push({ cand, seg });
  }
  // in search order, as the search adds them
  plan.set(parts.sort((a, b) => cands.indexOf(a.cand) - cands.indexOf(b.cand)));
}

/**
 * Every completion of a partial plan with the candidates from position i on open: each chosen part at an
 * amount of its segment, at most maxParts parts in all, each open candidate unused or at an amount it
 * accepts, every limit kept. Per amount placed, the most a completion earns.
 */
export function completions(space: SearchSpace, plan: PartialPlan, i: number): Map<number, number> {
  const { cands, limits } = space;
  const best = new Map<number, number>();
  const used = limits.groupLimits.map(() => 0);
  const chosen = plan.parts;
  const open = cands.slice(i);
  const walk = (k: number, parts: number, placed: number, fixed: number, value: number) => {
    const item = k < chosen.length ? chosen[k]! : open[k - chosen.length];
    if (item === undefined) {
      if (!(best.get(placed)! >= value)) best.set(placed, value);
      return;
    }
    const isChosen = k < chosen.length;
    const cand = isChosen ? (item as Chosen).cand : (item as Cand);
    const [lo, hi] = isChosen ? [(item as Chosen).seg.lo, (item as Chosen).seg.hi] : [cand.lo, cand.hi];
    if (!isChosen) walk(k + 1, parts, placed, fixed, value);
    if (!isChosen && parts >= limits.maxParts) return;
    for (let u = lo; u <= hi; u++) {
      if (placed + u > limits.total || used[cand.group]! + u > limits.groupLimits[cand.group]!) break;
      if (!cand.flexible && fixed + u > limits.maxNonFlexible) break;
      used[cand.group]! += u;
      walk(
        k + 1,
        parts + (isChosen ? 0 : 1),
        placed + u,
        cand.flexible ? fixed : fixed + u,
        value + valueOf(space, cand, u),
      );
      used[cand.group]! -= u;
    }
  };
  walk(0, chosen.length, 0, 0, 0);
  return best;
}
