// The savings plan's optimizer, its words: what a caller hands in and gets back (PlanProblem,
// PlanSolution), and the working shapes its parts pass each other (Cand, Seg, Item, Bound). The
// tolerances are here too: every part that compares floating-point bounds uses the same ones.
import { compareDecimals, Decimal } from '../decimal.js';

export interface PlanSegment {
  /** Grid units, lo ≤ hi. */
  lo: number;
  hi: number;
  /** value(k) ≤ slope·k + intercept at every grid point k of [lo, hi]. */
  slope: Decimal;
  intercept: Decimal;
  /** The line is the value itself (up to the last of 34 digits): a linear or affine piece. */
  exact: boolean;
}

export interface PlanCandidate {
  id: string;
  /** Index into `groupLimits`. */
  group: number;
  flexible: boolean;
  /**
   * Ascending and contiguous: they cover every amount the offer accepts, without gaps. Read only for the
   * candidates the search keeps when `facts` are given, so a caller may make them on demand.
   */
  readonly segments: readonly PlanSegment[];
  /** What `candidateFacts` reads off the segments, when the caller knows it already (it kept them). */
  facts?: CandidateFacts;
  /** The objective's value of placing k grid units in the offer (exact, Decimal). */
  value(units: number): Decimal;
  /**
   * Splits a segment whose line is only a bound at k: [lo, k − 1], [k, k] (exact) and [k + 1, hi], the
   * empty ones left out, each with a bound at least as tight.
   */
  refine(segment: PlanSegment, units: number): PlanSegment[];
}

/**
 * What the search reads of a candidate's segments to decide whether it keeps it (prepare, dominance):
 * its amounts and the bounds of what a unit earns. No amount when lo > top.
 */
export interface CandidateFacts {
  lo: number;
  top: number;
  /** Upper bound of value(k)/k over every amount (margin included). */
  yieldHi: number;
  /** Lower bound of value(k)/k (margin included); −Infinity unless every segment is exact. */
  yieldLo: number;
  /** Every segment exact, through the origin and with the same slope. */
  constantSlope: Decimal | null;
}

export interface PlanProblem {
  candidates: readonly PlanCandidate[];
  /** Per group (institution): the units its parts may add up to (its DGS limit). */
  groupLimits: readonly number[];
  /** The units to place, at most. */
  total: number;
  maxParts: number;
  /** The units the non-flexible parts may add up to (the amount less the flexible reserve). */
  maxNonFlexible: number;
  /** Maximise the placement only, whatever it earns: what the diagnosis of an unplaced rest asks. */
  placementOnly?: boolean;
  /** The work the search may do before it stops with the best plan found (default WORK_BUDGET). */
  maxWork?: number;
}

export interface PlanPart {
  /** Index into `candidates`. */
  candidate: number;
  units: number;
  value: Decimal;
}

export interface PlanStats {
  /** Candidates with an amount they accept within the limits. */
  candidates: number;
  /** Left after removing those that can always be replaced by a better one (dominance). */
  kept: number;
  /** Search nodes bounded. */
  nodes: number;
  /** Choices of parts whose amounts were solved. */
  leaves: number;
  /** Segments split because their bound was not tight enough. */
  refinements: number;
  /** Steps of the bounds' inner loops (stretches looked at, offers priced): what the budget counts. */
  work: number;
}

export interface PlanSolution {
  /** In candidate order. */
  parts: PlanPart[];
  placed: number;
  value: Decimal;
  /** The search ended with every choice pruned: no plan places more, or as much and earns more (to EPSILON). */
  proven: boolean;
  /**
   * Unproven (the work budget ran out): the most any plan could earn above this one per year, from the
   * bounds of the choices left. 0 when proven.
   */
  gap: number;
  stats: PlanStats;
}

/** The limits every plan keeps, as the search reads them (total and maxNonFlexible clamped to ≥ 0). */
export interface PlanLimits {
  groupLimits: readonly number[];
  total: number;
  maxParts: number;
  maxNonFlexible: number;
  placementOnly: boolean;
}

/** A plan's value is taken as optimal once no bound exceeds it by more than this (euros per year). */
export const EPSILON = new Decimal('1e-6');
/**
 * A choice whose bound is at most EPSILON above the best plan is dropped: plans that tie with the best
 * one (offers of equal rates at several institutions make many) need not be explored one by one.
 */
export const EPSILON_FLOAT = EPSILON.toNumber();

/**
 * Relative margin added to every floating-point bound: far above its rounding error (a bound adds up at
 * most a few hundred products, ≈1e-14 of their sum) and far enough below EPSILON that ties are dropped.
 */
export const FLOAT_MARGIN = 1e-12;

export const up = (v: number) => v + Math.abs(v) * FLOAT_MARGIN + 1e-300;
export const down = (v: number) => v - Math.abs(v) * FLOAT_MARGIN - 1e-300;

/** More placed, or as much and more earned: the order of plans. */
export const better = (placed: number, value: Decimal, bestPlaced: number, bestValue: Decimal) =>
  placed > bestPlaced || (placed === bestPlaced && compareDecimals(value, bestValue) > 0);

/** A segment as the bounds read it: its amounts within the candidate's, its line in floating point. */
export interface Seg {
  src: PlanSegment;
  lo: number;
  hi: number;
  slope: number;
  intercept: number;
}

/** A candidate as the search holds it (see candidates.ts). */
export interface Cand {
  index: number;
  src: PlanCandidate;
  group: number;
  flexible: boolean;
  lo: number;
  hi: number;
  /** Its segments within [lo, hi]: made for the candidates the search keeps (see `segmentsOf`). */
  segs: Seg[];
  /** Upper bound of value(k)/k over every k the candidate accepts (margin included). */
  yieldHi: number;
  /** Lower bound of value(k)/k (margin included); −Infinity unless every segment is exact. */
  yieldLo: number;
  /** Every segment exact, through the origin and with the same slope: value(k) = slope·k. */
  constantSlope: Decimal | null;
  /** It accepts every amount up to what its institution, the amount and its kind's cap allow. */
  reachesCap: boolean;
  /** Upper concave envelope steps of its bound (see envelope.ts). */
  steps: Item[];
}

/** The institutions in the order the search takes them, and each one's rank in that order. */
export interface GroupOrder {
  groups: number[];
  rank: Map<number, number>;
}

/** A part of a partial plan: a candidate and the segment its amount lies in. */
export interface Chosen {
  cand: Cand;
  seg: Seg;
}

/** A stretch of amounts and the most each of its units could earn, for the bounds. */
export interface Item {
  slope: number;
  width: number;
  group: number;
  flexible: boolean;
  /** A stretch of a part already chosen (else of candidates still open, which new parts must hold). */
  chosen?: boolean;
  /** The candidate's index, for an open one. */
  cand?: number;
  /**
   * A candidate's first stretch when its minimum is above one unit: a part holds none of it or at least
   * this many units (the bound takes it whole or not at all where it would take less).
   */
  floor?: number;
}

/** A bound of every completion of a partial plan: the most it places, and the most it earns doing so. */
export interface Bound {
  placed: number;
  value: number;
  /** Above the floating-point error of `value`. */
  margin: number;
}
