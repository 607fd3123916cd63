// The calculation of a catalogue offer for a request: which period, which promotion mode, and the
// memoising calculator that makes a new amount cost a few Decimal operations per offer.
import { LRUCache } from 'lru-cache';
import { calculate, withPromotions } from '../domain/calc.js';
import type { Decimal } from '../domain/decimal.js';
import { createCalculator, type CalculatorStats, type PieceShape } from '../domain/fast-calc.js';
import type { CalcResult, CalcSummary, CalcYields, PromotionsMode } from '../domain/types.js';
import { changeImpact, type ChangeImpact } from '../domain/impact.js';
import type { OfferModel } from '../domain/plan-model.js';
import { moneyToCents, type PresentedCalc } from '../domain/present.js';
import type { CandidateFacts } from '../domain/plan.js';
import type { ImpactBasis, RankYields } from './shapes.js';
import { internTerms, type InternedTerms } from './terms-id.js';
import type { Catalog, CatalogOffer } from './types.js';

export interface CalcService {
  /**
   * What ranking needs, made for every offer of a list: answered without arithmetic when the offer's
   * yields are the same for every amount (most are: one tier, no capped promotion, no fee).
   */
  rank(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): RankYields;
  /** Every calc field but the steps, memoised: made for the offers that are shown. */
  summary(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcSummary;
  /** What the client sees of `summary`, from floats where they decide every cent; null: present the summary. */
  presented(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): PresentedCalc | null;
  /**
   * The yields at any amount, like `summary`'s, without keeping the amount among the recent ones: the
   * savings plan asks about many amounts once each, which would push the list's popular amounts out.
   */
  yieldsAt(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcYields;
  /** The closed form of the offer's calculation around an amount (null: none), from the same pieces. */
  piece(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): PieceShape | null;
  /** The detail's calculation with its monthly steps (the reference loop). */
  full(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcResult;
  /** A rate event's impact for an amount, as the list calculates it for that horizon (promotions included). */
  impact(basis: ImpactBasis, amount: Decimal, horizon: number): ChangeImpact;
  /**
   * The savings plan's offer models (src/catalog/plan.ts) of a catalogue, by offer, period, mode and
   * objective: they do not depend on the amount, so a new amount costs the search only. Those of one
   * catalogue at a time (an offer's terms may change with the next), bounded by bytes: the horizon is
   * the client's choice, and each (horizon, promotions, objective) asked makes a model per candidate.
   */
  planModels(catalog: Catalog): LRUCache<string, OfferModel>;
  /**
   * What the plan's search reads of a model to decide whether it keeps the candidate (candidateFacts in
   * src/domain/plan/candidates.ts), by horizon, mode and objective, then by offer: a few numbers, kept
   * for many more offers than their models, so that a plan over a large market makes models only for the
   * candidates its search keeps. Bounded by the offers counted when a map is stored.
   */
  planFacts(catalog: Catalog): LRUCache<string, Map<CatalogOffer, CandidateFacts>>;
  /**
   * What `make` gives for `key` over a catalogue, made once and kept by its `bytes`: a whole list asked
   * again (GraphQL POSTs, which the body cache does not see, and the REST forms of one query). Only for
   * what depends on nothing but the catalogue's version and the key.
   */
  kept<T extends object>(
    catalog: Catalog,
    key: string,
    bytes: (value: T) => number,
    make: () => Promise<T>,
  ): Promise<T>;
  /**
   * The calculator's work so far (pieces traced, reference runs), for lists, plans and models alike: it moves
   * when a calculation was not a lookup.
   */
  work(): number;
  /**
   * Keeps, whatever the budget's count, the pieces a list over the whole catalogue needs: one per offer
   * at most (offers of the same terms share theirs). With fewer, least-recently-used eviction drops each
   * piece just before the next list asks for it, and every list traces the market again: at 13,000
   * offers, ≈1 s a list and 22 s a CSV export of the whole market, where the pieces kept make it 0.18 s.
   * Only for a catalogue of at most `upTo` offers (what the memory budget has room for: src/memory.ts,
   * heldOffers); a larger one gets its share's count. Whether it holds them.
   */
  holdPassOver(catalog: Catalog, upTo?: number): boolean;
  stats(): CalculatorStats & {
    constantYields: number;
    recentRanks: number;
    recentSummaries: number;
    impacts: number;
    planModels: number;
    keptLists: number;
    entries: number;
    bytes: number;
    maxBytes: number;
  };
  clear(): void;
}

/**
 * For a loop over offers that runs in slices (lane.ts): whether to yield before the next offer. Every
 * `every` offers, and after any offer whose calculation was work (a piece traced, the reference run),
 * not a lookup. Where it yields is counted, never timed, so the result does not depend on it.
 */
export function pausePoints(calc: Pick<CalcService, 'work'>, every: number): () => boolean {
  let work = calc.work();
  let count = 0;
  return () => {
    const now = calc.work();
    const due = ++count % every === 0 || now !== work;
    work = now;
    return due;
  };
}

/** horizon for flexible and notice accounts, the term for deposits (contract §2). */
export const periodOf = (offer: CatalogOffer, horizon: number): number =>
  offer.type === 'deposit' && offer.termMonths ? offer.termMonths : horizon;

// One mode per way of calculating, so `only` and `include` share their memo entries (and the plan's offer models).
export const calcMode = (promotions: PromotionsMode): PromotionsMode =>
  withPromotions(promotions) ? 'include' : 'exclude';

/** The calculator's key: the terms (their id, src/catalog/terms-id.ts), the period and the mode. */
const calcKey = (termsId: number, months: number, mode: PromotionsMode) => `${termsId}:${months}:${mode}`;

/** How many amounts asked once a RecentByAmount that keeps from the second ask remembers (then it starts over). */
const ASKED_ONCE_MAX = 4096;

/**
 * Results for recent amounts, grouped by amount: a list asks about every offer for one amount, so a
 * new amount costs one lookup, not a cache operation per offer (those were a sixth of a scale-20
 * list). At most `max` results in all; the least recently asked amount goes first, and an amount that
 * alone reaches the bound keeps what it has.
 *
 * With `fromSecondAsk`, an amount's results are kept from the second time it is asked (nginx's
 * proxy_cache_min_uses 2): before, they are held apart for the last such amount only, which is what
 * one list reads. Amounts asked once (a client or a benchmark sweeping amounts) then neither push the popular ones
 * out nor live long enough to be promoted and collected as old objects: holding every amount's 685 ranks
 * cost a cold list at a new amount each time ≈4 % of its CPU in garbage collection.
 */
export class RecentByAmount<V> {
  private readonly byAmount: LRUCache<string, Map<string, V>>;
  private count = 0;
  // The amount asked last and its results: a list asks for the same amount thousands of times in a row.
  private lastAmount: string | undefined;
  private lastResults: Map<string, V> | undefined;
  // With fromSecondAsk: the last amount asked for the first time, its results held apart, not counted.
  private heldAmount: string | undefined;
  private heldResults: Map<string, V> | undefined;
  private readonly askedOnce: Set<string> | null;

  constructor(
    private readonly max: number,
    { fromSecondAsk = false }: { fromSecondAsk?: boolean } = {},
  ) {
    this.askedOnce = fromSecondAsk ? new Set() : null;
    this.byAmount = new LRUCache<string, Map<string, V>>({
      max: Math.max(1, max),
      dispose: (results) => {
        this.count -= results.size;
        if (results === this.lastResults) this.lastAmount = this.lastResults = undefined;
      },
    });
  }

  get(amount: string, key: string): V | undefined {
    return this.resultsOf(amount)?.get(key);
  }

  set(amount: string, key: string, value: V): void {
    let results = this.resultsOf(amount);
    if (!results) {
      results = new Map();
      if (this.admits(amount)) {
        this.byAmount.set(amount, results);
        this.lastAmount = amount;
        this.lastResults = results;
      } else {
        this.heldAmount = amount;
        this.heldResults = results;
      }
    }
    if (results === this.heldResults || results.has(key)) {
      results.set(key, value);
      return;
    }
    // The amount just asked is the most recent, so older amounts go first; it never evicts itself.
    while (this.count >= this.max && this.byAmount.size > 1) this.byAmount.pop();
    if (this.count >= this.max) return;
    results.set(key, value);
    this.count++;
  }

  get size(): number {
    return this.count;
  }

  private resultsOf(amount: string): Map<string, V> | undefined {
    if (amount === this.lastAmount) return this.lastResults;
    if (amount === this.heldAmount) return this.heldResults;
    const results = this.byAmount.get(amount); // now the most recently used
    this.lastAmount = results && amount;
    this.lastResults = results;
    return results;
  }

  /** Whether an amount's results go into the cache: always, or from its second ask on. */
  private admits(amount: string): boolean {
    const once = this.askedOnce;
    if (once === null || once.delete(amount)) return true;
    if (once.size >= ASKED_ONCE_MAX) once.clear();
    once.add(amount);
    return false;
  }
}

/**
 * What one kept item costs on the heap, measured (npm run bench:calc prints the heap per piece): a
 * piece (its affine pairs and bounds, a few dozen Decimals), an exact result, a kept pair of yields, a
 * kept summary (a dozen Decimals and their map entry), an amount-independent pair of yields, an impact,
 * an evicted piece's shadow (its floats and its key's group: 224 B measured for a key's only one, 132 B
 * each for two).
 */
export const ITEM_BYTES = {
  piece: 3_000,
  exact: 1_600,
  rank: 320,
  summary: 1_400,
  constant: 320,
  impact: 700,
  shadow: 200,
} as const;

/**
 * An offer model of the savings plan on the heap: the model and its closures (5.7 KB), and per segment
 * the segment (two Decimals), its shape and the search's float copy of it (610 B). Measured: the heap
 * freed by dropping the models of plans for a dozen (horizon, promotions) pairs, 1,149 models of 1 to 30
 * segments. Before they were bounded by bytes, 100,000 models (about 700 MB) could be kept.
 */
export const MODEL_BYTES = { model: 6_000, segment: 700 } as const;

/** A model's facts (CandidateFacts) and their entry in an offer's map: measured 125 B, counted with room. */
export const FACTS_BYTES = 200;
/** The share of the models' part that their facts may take. */
const FACTS_SHARE = 0.5;

/**
 * How the calculator's part of the memory budget is shared among what it keeps; whole lists get a
 * twentieth (a few dozen lists of the sample), the plan's models what is left (a fifth), enough for
 * every candidate of a few (horizon, promotions) pairs. The summaries' part (a fifth until the shadows
 * took 0.08 of it) still holds what the soak's mix keeps of them (≈2,200 at the default budget).
 */
const PARTS = {
  piece: 0.31,
  exact: 0.08,
  rank: 0.08,
  summary: 0.12,
  constant: 0.04,
  impact: 0.04,
  shadow: 0.08,
} as const;
const LIST_PART = 0.05;
const MODEL_PART = 1 - LIST_PART - Object.values(PARTS).reduce((a, b) => a + b, 0);

export function createCalcService(options: { maxBytes?: number; rough?: boolean } = {}): CalcService {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const count = (item: keyof typeof ITEM_BYTES) => Math.max(1, Math.floor((maxBytes * PARTS[item]) / ITEM_BYTES[item]));
  const calculator = createCalculator({
    maxPieces: count('piece'),
    maxExact: count('exact'),
    maxShadows: count('shadow'),
    rough: options.rough,
  });
  // The pieces kept whatever the count: one per offer of the current catalogue (holdPassOver).
  let held = 0;
  // Popular amounts come back (25,000; 50,000): their results are kept, so a repeat under other filters,
  // or through GraphQL, costs a lookup. The text of the amount is made once per list, not per offer.
  const recentRanks = new RecentByAmount<RankYields>(count('rank'), { fromSecondAsk: true });
  const recentSummaries = new RecentByAmount<CalcSummary>(count('summary'), { fromSecondAsk: true });
  // Terms whose yields are the same for every amount (a single rate, no tiers or caps: most flexible
  // accounts), by calculation key. Kept here rather than on the catalogue's offers, which stay as
  // loaded; bounded by its part of the bytes like everything else here.
  const constants = new LRUCache<string, RankYields>({ max: count('constant') });
  // In front of it, per offer, the period and mode asked last, their calculation key and their constant
  // (null: none): a list asks every offer about one period and mode, and for most the answer is their
  // constant. A field compare instead of a key string and an LRU lookup; for the others, a key whose hash
  // is already known (a string made anew is hashed at each Map lookup). By offer, not by terms: offers of
  // the same terms (deposits of one rate plan and several terms) are asked about different periods. An
  // entry per live offer, dropped with its catalogue.
  let lastSlots = new WeakMap<
    CatalogOffer,
    { months: number; mode: PromotionsMode; key: string; yields: RankYields | null }
  >();
  // A rate event reaches every client that follows it, often with the same few amounts.
  const impacts = new LRUCache<string, ChangeImpact>({ max: count('impact') });
  // An event's two sides, interned once per basis (its key names the two plans and the offer's terms,
  // which never change), and each side's return per year for recent amounts: a detail's events follow
  // one another, the plan after one is the plan before the next, and a detail at a new amount asked
  // both sides of each anew.
  const sidesByBasis = new LRUCache<string, [before: InternedTerms, after: InternedTerms]>({ max: count('impact') });
  const recentSides = new RecentByAmount<string>(count('impact'));
  const modelPart = Math.floor(maxBytes * MODEL_PART);
  const modelBytes = Math.max(64 * 1024, Math.floor(modelPart * (1 - FACTS_SHARE)));
  const factsCount = Math.max(1, Math.floor((modelPart * FACTS_SHARE) / FACTS_BYTES));
  const making = new Map<string, Promise<object>>();
  const lists = new LRUCache<string, { value: object; bytes: number }>({
    maxSize: Math.max(64 * 1024, Math.floor(maxBytes * LIST_PART)),
    sizeCalculation: (entry, key) => entry.bytes + 2 * key.length,
  });
  let models:
    | {
        catalog: Catalog;
        kept: LRUCache<string, OfferModel>;
        facts: LRUCache<string, Map<CatalogOffer, CandidateFacts>>;
      }
    | undefined;
  let lastAmount: Decimal | undefined;
  let lastText = '';
  const textOf = (amount: Decimal) => {
    if (amount !== lastAmount) {
      lastAmount = amount;
      lastText = amount.toString();
    }
    return lastText;
  };
  const args = (offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode) => {
    const months = periodOf(offer, horizon);
    const mode = calcMode(promotions);
    return [calcKey(offer.termsId, months, mode), { amount, months, promotions: mode, terms: offer.terms }] as const;
  };
  const modelsOf = (catalog: Catalog) => {
    if (models?.catalog !== catalog) {
      models = {
        catalog,
        kept: new LRUCache<string, OfferModel>({
          maxSize: modelBytes,
          sizeCalculation: (model, key) =>
            MODEL_BYTES.model + model.segments.length * MODEL_BYTES.segment + 2 * key.length,
        }),
        facts: new LRUCache<string, Map<CatalogOffer, CandidateFacts>>({
          maxSize: factsCount,
          sizeCalculation: (byOffer) => Math.max(1, byOffer.size),
        }),
      };
    }
    return models;
  };
  return {
    rank(offer, amount, horizon, promotions) {
      const months = periodOf(offer, horizon);
      const mode = calcMode(promotions);
      let slot = lastSlots.get(offer);
      if (slot === undefined || slot.months !== months || slot.mode !== mode) {
        const key = calcKey(offer.termsId, months, mode);
        slot = { months, mode, key, yields: constants.get(key) ?? null };
        lastSlots.set(offer, slot);
      }
      if (slot.yields !== null) return slot.yields;
      const key = slot.key;
      const text = textOf(amount);
      const recent = recentRanks.get(text, key);
      if (recent) return recent;
      const input = { amount, months, promotions: mode, terms: offer.terms };
      const yields = calculator.evaluateRank(key, input);
      const constant = calculator.constantYields(key, input);
      if (constant) {
        constants.set(key, constant);
        return (slot.yields = constant);
      }
      recentRanks.set(text, key, yields);
      return yields;
    },
    summary(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      const text = textOf(amount);
      let summary = recentSummaries.get(text, key);
      if (!summary) recentSummaries.set(text, key, (summary = calculator.evaluate(key, input)));
      return summary;
    },
    presented(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      return calculator.present(key, input);
    },
    yieldsAt(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      return calculator.evaluateYields(key, input);
    },
    piece(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      return calculator.pieceAt(key, input);
    },
    full(offer, amount, horizon, promotions) {
      return calculate(
        { amount, months: periodOf(offer, horizon), promotions: calcMode(promotions), terms: offer.terms },
        { steps: true },
      );
    },
    impact(basis, amount, horizon) {
      const months = basis.termMonths ?? horizon;
      const key = `${basis.key}|${months}|${amount.toString()}`;
      let impact = impacts.get(key);
      if (!impact) {
        // By the fast evaluator, whose pieces for the pair's terms then serve every later amount: a
        // detail shows a dozen events, each two calculations over up to ten years of months. Keyed as a
        // list keys an offer's (by the terms' content), so that the plan in force now uses the pieces
        // the lists built for the offer, and every side of an event those of the offers with its terms.
        const mode = calcMode('include');
        let sides = sidesByBasis.get(basis.key);
        if (!sides) sidesByBasis.set(basis.key, (sides = [internTerms(basis.before), internTerms(basis.after)]));
        const [before, after] = sides;
        const text = textOf(amount);
        const shownReturnPerYear = (side: 'before' | 'after') => {
          const interned = side === 'before' ? before : after;
          const key = calcKey(interned.id, months, mode);
          let shown = recentSides.get(text, key);
          if (shown === undefined) {
            const input = { amount, months, promotions: mode, terms: interned.terms };
            // from floats where they decide the cent, as a list's rows (src/domain/fast-present.ts)
            const rows = calculator.present(key, input);
            shown = rows
              ? rows.returnPerYear
              : moneyToCents(calculator.evaluateYields(key, input).returnPerYear, amount);
            recentSides.set(text, key, shown);
          }
          return shown;
        };
        impact = changeImpact({ amount, months, before: basis.before, after: basis.after, shownReturnPerYear });
        impacts.set(key, impact);
      }
      return impact;
    },
    planModels: (catalog) => modelsOf(catalog).kept,
    planFacts: (catalog) => modelsOf(catalog).facts,
    kept<T extends object>(
      catalog: Catalog,
      key: string,
      bytes: (value: T) => number,
      make: () => Promise<T>,
    ): Promise<T> {
      // The version names the data (a past catalogue read back from the ledger is the same data).
      const full = `${catalog.version}|${key}`;
      const found = lists.get(full);
      if (found) return Promise.resolve(found.value as T);
      // Made in slices (lane.ts): the same list asked again meanwhile waits for the one being made.
      let pending = making.get(full) as Promise<T> | undefined;
      if (!pending) {
        pending = make()
          .then((value) => {
            const size = bytes(value);
            if (size + 2 * full.length <= lists.maxSize) lists.set(full, { value, bytes: size });
            return value;
          })
          .finally(() => making.delete(full));
        making.set(full, pending);
      }
      return pending;
    },
    work: () => calculator.work(),
    holdPassOver: (catalog, upTo = Infinity) => {
      const fits = catalog.offers.length <= upTo;
      held = fits ? catalog.offers.length : 0;
      calculator.holdAtLeast(held);
      return fits;
    },
    stats: () => {
      const own = calculator.stats();
      const sizes = {
        piece: own.pieces,
        exact: own.exactEntries,
        rank: recentRanks.size,
        summary: recentSummaries.size,
        constant: constants.size,
        impact: impacts.size,
        shadow: own.shadows,
      };
      const entries = Object.values(sizes).reduce((a, b) => a + b, 0);
      const bytes =
        (Object.keys(sizes) as (keyof typeof sizes)[]).reduce((n, item) => n + sizes[item] * ITEM_BYTES[item], 0) +
        (models?.kept.calculatedSize ?? 0) +
        (models?.facts.calculatedSize ?? 0) * FACTS_BYTES +
        lists.calculatedSize;
      return {
        ...own,
        constantYields: constants.size,
        recentRanks: recentRanks.size,
        recentSummaries: recentSummaries.size,
        impacts: impacts.size,
        planModels: models?.kept.size ?? 0,
        keptLists: lists.size,
        entries: entries + (models?.kept.size ?? 0) + (models?.facts.calculatedSize ?? 0) + lists.size,
        bytes,
        // The pieces held beyond the budget's count are the catalogue's part of the budget (src/memory.ts):
        // counted here too, so that what is kept never reads as more than the bound.
        maxBytes: maxBytes + Math.max(0, held - count('piece')) * ITEM_BYTES.piece,
      };
    },
    clear: () => {
      calculator.clear();
      constants.clear();
      lastSlots = new WeakMap();
      impacts.clear();
      models = undefined;
      lists.clear();
    },
  };
}
