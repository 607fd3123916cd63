// GET /api/plan and the GraphQL field `plan` (issue 17): where to put an amount so that every euro is
// covered by a deposit guarantee and the return is highest. The candidates are the offers the list
// would show for the same filters (contract §4 steps 1–2, verified DGS only); each part is calculated
// as the list calculates an offer (contract §2) and carries its DGS split (§3). The optimizer and why
// its plan is the best one: src/domain/plan/ and docs/calculation.md, "The savings plan". Pure: the
// catalogue, the query and the time go in, the plan comes out.
import type { LRUCache } from 'lru-cache';
import { compareDecimals, Decimal, HUNDRED, toFixed2, ZERO } from '../domain/decimal.js';
import {
  comparableTotals,
  objectiveValue,
  offerModel,
  type OfferModel,
  type PlanObjective,
} from '../domain/plan-model.js';
import {
  candidateFacts,
  drain,
  planSearch,
  WORK_BUDGET,
  type CandidateFacts,
  type PlanCandidate,
  type PlanProblem,
  type PlanSegment,
  type PlanStats,
  type SearchBudget,
} from '../domain/plan.js';
import { planTotals, type PlanTotals } from '../domain/plan-totals.js';
import type { PromotionsMode } from '../domain/types.js';
import type { PlanSort, UnplacedCode } from '../domain/vocabulary.js';
import { calcMode, pausePoints, periodOf, type CalcService } from './calc-service.js';
import { compileFilters } from './filters.js';
import { answerInstant } from './freshness.js';
import { offerResult, type OfferResult } from './pipeline.js';
import { PRODUCT_DEFAULTS, type ProductQuery } from './query.js';
import type { Catalog, CatalogInstitution, CatalogOffer } from './types.js';

/** The most offers a plan may use (`maxOffers`). */
export const MAX_OFFERS_LIMIT = 20;

/** A plan request after validation: the list's filters plus the plan's own parameters. */
export interface PlanQuery extends Omit<
  ProductQuery,
  'sort' | 'order' | 'page' | 'pageSize' | 'includeIneligible' | 'fullDgs'
> {
  sort: PlanSort;
  /** 1..MAX_OFFERS_LIMIT */
  maxOffers: number;
  /** Percent of the amount that must go to flexible accounts, 0..100. */
  flexibleShare: Decimal;
}

/**
 * Like the list's, except `type`: a plan spreads an amount over offers, and `flexibleShare` only means
 * something when flexible accounts and others can be mixed, so every type is a candidate by default.
 */
const {
  sort: _sort,
  order: _order,
  page: _page,
  pageSize: _pageSize,
  includeIneligible: _includeIneligible,
  fullDgs: _fullDgs,
  ...LIST_FILTERS
} = PRODUCT_DEFAULTS;

export const PLAN_DEFAULTS: PlanQuery = Object.freeze({
  ...LIST_FILTERS,
  type: 'all',
  sort: 'return',
  maxOffers: 5,
  flexibleShare: new Decimal(0),
}) as PlanQuery;

export const planQuery = (overrides: Partial<PlanQuery> = {}): PlanQuery => ({ ...PLAN_DEFAULTS, ...overrides });

/** Why part of the amount is not placed: a stable code and a sentence with the numbers. */
export interface UnplacedReason {
  code: UnplacedCode;
  message: string;
}

export interface PlanAllocation {
  /** The offer calculated for its part, as a list shows it (calc and DGS split for `amount`). */
  offer: OfferResult;
  amount: Decimal;
}

export interface SavingsPlan {
  objective: PlanObjective;
  /** Largest part first. */
  allocations: PlanAllocation[];
  totals: PlanTotals;
  unplacedReason: UnplacedReason | null;
  /** The search proved that no plan places more, or as much and earns more (see WORK_BUDGET). */
  optimal: boolean;
  /**
   * How much more a year any plan could earn at most, rounded up to the cent: 0 when optimal; null when
   * a plan placing more was not ruled out.
   */
  optimalityGap: Decimal | null;
  /** When the data last changed (as in the list): the same data, the same plan. */
  generatedAt: Date;
  search: PlanStats;
}

export interface PlanContext {
  catalog: Catalog;
  calc: CalcService;
  /** For freshness=24h. */
  now: Date;
  /**
   * Asked while the search runs: true once its answer is no longer worth waiting for (the request's
   * deadline). The search then answers its best plan and the gap its bounds leave, as when its work
   * budget is spent.
   */
  stop?: () => boolean;
}

/** Parts are whole euros; a cent rest of the amount is added to one part afterwards. */
const EURO = new Decimal(1);

// Offers of a catalogue never change: their domains are read once, not per plan (Decimal rounding per
// offer was a fourteenth of a plan's time).
const DOMAINS = new WeakMap<CatalogOffer, readonly [number, number]>();

/** The whole euros an offer accepts within its institution's limit: [ceil(min), floor(min(max, limit))]. */
function domainOf(offer: CatalogOffer): readonly [number, number] {
  let domain = DOMAINS.get(offer);
  if (domain) return domain;
  const lo = Math.max(1, offer.minAmount.ceil().toNumber());
  const top =
    offer.maxAmount === null ? offer.institution.dgs.limit : Decimal.min(offer.maxAmount, offer.institution.dgs.limit);
  DOMAINS.set(offer, (domain = [lo, top.floor().toNumber()]));
  return domain;
}

/** What the candidates of one plan share to make their offers' models. */
interface ModelSource {
  calc: CalcService;
  models: LRUCache<string, OfferModel>;
  horizon: number;
  promotions: PromotionsMode;
  mode: PromotionsMode;
  objective: PlanObjective;
}

/**
 * A candidate of the search for an offer: its model's facts at once, its model when the search asks for
 * its segments (it keeps the candidate) or its values. Facts are kept longer than models (calc-service),
 * so over a large market the search reads them for every offer and models only the few hundred it keeps;
 * an offer whose facts are not known yet is modelled to learn them. A class, not closures: a plan makes
 * one per offer of the market.
 */
class OfferCandidate implements PlanCandidate {
  readonly id: string;
  readonly flexible: boolean;
  readonly facts: CandidateFacts;
  // One model per request once made, whatever the cache does meanwhile: a segment is refined by its own model.
  private model: OfferModel | undefined;
  // The search asks again for values it has asked before (bounds, leaves): once per request.
  private seen: Map<number, Decimal> | undefined;

  constructor(
    private readonly source: ModelSource,
    private readonly offer: CatalogOffer,
    readonly group: number,
    private readonly domain: readonly [number, number],
    facts: CandidateFacts | undefined,
  ) {
    this.id = offer.id;
    this.flexible = offer.type === 'flexible';
    this.facts = facts ?? candidateFacts(this.modelNow().segments);
  }

  get segments(): readonly PlanSegment[] {
    return this.modelNow().segments;
  }

  value(k: number): Decimal {
    this.seen ??= new Map();
    let v = this.seen.get(k);
    if (v === undefined) this.seen.set(k, (v = this.modelNow().value(k)));
    return v;
  }

  refine(segment: PlanSegment, k: number): PlanSegment[] {
    return this.modelNow().refine(segment, k);
  }

  private modelNow(): OfferModel {
    if (this.model) return this.model;
    const { offer } = this;
    const { calc, models, horizon, promotions, mode, objective } = this.source;
    const months = periodOf(offer, horizon);
    const key = `${offer.id}|${months}|${mode}|${objective}`;
    let model = models.get(key);
    if (!model) {
      model = offerModel(
        {
          terms: offer.terms,
          months,
          promotions: mode,
          pieceAt: (amount) => calc.piece(offer, amount, horizon, promotions),
          yieldsAt: (amount) => calc.yieldsAt(offer, amount, horizon, promotions),
          comparableAt: (amount) => comparableTotals({ amount, months, promotions: mode, terms: offer.terms }),
        },
        objective,
        EURO,
        this.domain[0],
        this.domain[1],
      );
      models.set(key, model);
    }
    return (this.model = model);
  }
}

/** The list's query for the filters a plan shares with it. */
function listQueryOf(q: PlanQuery): ProductQuery {
  return {
    ...PRODUCT_DEFAULTS,
    ...q,
    sort: q.sort,
    order: null,
    page: 1,
    pageSize: 1,
    includeIneligible: false,
    fullDgs: true,
  };
}

function validate(q: PlanQuery): void {
  if (!q.amount.isPositive() || q.amount.isZero()) throw new RangeError('amount must be > 0');
  if (!Number.isInteger(q.horizon) || q.horizon < 1) throw new RangeError('horizon must be a positive integer');
  if (!Number.isInteger(q.maxOffers) || q.maxOffers < 1 || q.maxOffers > MAX_OFFERS_LIMIT)
    throw new RangeError(`maxOffers must be 1..${MAX_OFFERS_LIMIT}`);
  if (q.flexibleShare.isNegative() || q.flexibleShare.gt(HUNDRED)) throw new RangeError('flexibleShare must be 0..100');
}

const euros = (v: Decimal) => `${toFixed2(v)} €`;

/** The plan, computed at once on the caller's stack. */
export const planAllocation = (ctx: PlanContext, q: PlanQuery): SavingsPlan => drain(planSteps(ctx, q));

/**
 * The plan in steps: it yields between offers as it builds the candidates and between the choices its
 * searches explore, so that a caller may run it in slices (src/catalog/lane.ts) without its answer
 * depending on them.
 */
export function* planSteps(ctx: PlanContext, q: PlanQuery): Generator<void, SavingsPlan, void> {
  validate(q);
  const { stop } = ctx;
  const budget: SearchBudget | undefined = stop && {
    spent: (stats) => stats.work >= WORK_BUDGET || stop(),
  };
  const { catalog, calc } = ctx;
  const objective: PlanObjective = q.sort === 'effective' ? 'effective' : 'return';
  const fails = compileFilters(listQueryOf(q), ctx.now);
  const total = q.amount.floor().toNumber();
  // Non-flexible offers may hold what the flexible reserve leaves of the amount.
  const reserve = q.amount.times(q.flexibleShare).div(HUNDRED);
  const nonFlexibleCap = q.amount.minus(reserve);

  // Candidates: what the list would show for these filters, under a verified DGS, accepting some whole
  // euros within the institution's limit and the amount.
  const institutions: CatalogInstitution[] = [];
  const groupOf = new Map<CatalogInstitution, number>();
  const offers: CatalogOffer[] = [];
  const candidates: PlanCandidate[] = [];
  // Those whose minimum is above the whole amount too: they count as room when explaining a rest.
  const eligible: CatalogOffer[] = [];
  // Every 16 offers, and after an offer whose model traced its pieces over its amounts (milliseconds).
  const due = pausePoints(calc, 16);
  const mode = calcMode(q.promotions);
  const source: ModelSource = {
    calc,
    models: calc.planModels(catalog),
    horizon: q.horizon,
    promotions: q.promotions,
    mode,
    objective,
  };
  // An offer's facts depend on its period (the horizon's, or its term), the mode and the objective.
  const variant = `${q.horizon}|${mode}|${objective}`;
  const factsByHorizon = calc.planFacts(catalog);
  const facts = factsByHorizon.get(variant) ?? new Map<CatalogOffer, CandidateFacts>();
  let learned = false;
  try {
    for (const offer of catalog.offers) {
      if (due()) yield;
      if (fails(offer) !== 0 || !offer.institution.dgs.verified) continue;
      const domain = domainOf(offer);
      if (domain[0] > domain[1]) continue;
      eligible.push(offer);
      if (domain[0] > total) continue;
      let group = groupOf.get(offer.institution);
      if (group === undefined) {
        groupOf.set(offer.institution, (group = institutions.length));
        institutions.push(offer.institution);
      }
      offers.push(offer);
      const known = facts.get(offer);
      const candidate = new OfferCandidate(source, offer, group, domain, known);
      if (!known) {
        facts.set(offer, candidate.facts);
        learned = true;
      }
      candidates.push(candidate);
    }
  } finally {
    // Stored again, also when the plan is stopped here (its client gone): the cache counts a map's entries
    // when it is stored.
    if (learned) factsByHorizon.set(variant, facts);
  }
  const problem: PlanProblem = {
    candidates,
    groupLimits: institutions.map((i) => i.dgs.limit.floor().toNumber()),
    total,
    maxParts: q.maxOffers,
    maxNonFlexible: nonFlexibleCap.floor().toNumber(),
  };
  const solution = yield* planSearch(problem, budget);

  // The parts in euros, then the amount's cents added to the part where they earn most and fit.
  const parts = solution.parts.map((p) => ({ offer: offers[p.candidate]!, amount: new Decimal(p.units) }));
  const cents = q.amount.minus(total);
  if (!cents.isZero() && parts.length > 0) addCents(parts, cents, q, objective, calc, nonFlexibleCap);

  const allocations = parts
    .map(({ offer, amount }) => ({
      offer: offerResult(calc, { amount, horizon: q.horizon, promotions: q.promotions }, offer),
      amount,
    }))
    .sort((a, b) => compareDecimals(b.amount, a.amount) || (a.offer.offer.id < b.offer.offer.id ? -1 : 1));
  const totals = planTotals(
    q.amount,
    allocations.map((a) => a.offer.calc),
  );
  const unplacedReason = totals.unplaced.isZero()
    ? null
    : yield* diagnose(problem, solution.placed, totals, q, eligible, budget);
  const optimalityGap = solution.proven
    ? ZERO
    : Number.isFinite(solution.gap)
      ? new Decimal(solution.gap.toFixed(12)).toDecimalPlaces(2, Decimal.ROUND_UP)
      : null;
  return {
    objective,
    allocations,
    totals,
    unplacedReason,
    optimal: solution.proven,
    optimalityGap,
    generatedAt: answerInstant(catalog.generatedAt, ctx.now, q.freshness === '24h'),
    search: solution.stats,
  };
}

/**
 * The cents of an amount (its part below one euro) go to the part where they add most to the objective
 * and fit: within the offer's maximum, the institution's limit and the non-flexible cap. None fits: they
 * stay unplaced.
 */
function addCents(
  parts: { offer: CatalogOffer; amount: Decimal }[],
  cents: Decimal,
  q: PlanQuery,
  objective: PlanObjective,
  calc: CalcService,
  nonFlexibleCap: Decimal,
): void {
  const perInstitution = new Map<CatalogInstitution, Decimal>();
  let nonFlexible = ZERO;
  for (const p of parts) {
    perInstitution.set(p.offer.institution, (perInstitution.get(p.offer.institution) ?? ZERO).plus(p.amount));
    if (p.offer.type !== 'flexible') nonFlexible = nonFlexible.plus(p.amount);
  }
  const value = (offer: CatalogOffer, amount: Decimal) =>
    objectiveValue(calc.yieldsAt(offer, amount, q.horizon, q.promotions), objective);
  let best: { part: (typeof parts)[number]; gain: Decimal } | null = null;
  for (const part of parts) {
    const { offer } = part;
    const more = part.amount.plus(cents);
    if (offer.maxAmount !== null && more.gt(offer.maxAmount)) continue;
    if (perInstitution.get(offer.institution)!.plus(cents).gt(offer.institution.dgs.limit)) continue;
    if (offer.type !== 'flexible' && nonFlexible.plus(cents).gt(nonFlexibleCap)) continue;
    const gain = value(offer, more).minus(value(offer, part.amount));
    if (best === null || compareDecimals(gain, best.gain) > 0) best = { part, gain };
  }
  if (best) best.part.amount = best.part.amount.plus(cents);
}

/**
 * Why some of the amount is not placed, the first limit that explains it: the number of offers (more
 * would place more), the flexible reserve (placing freely would place more), the room of the eligible
 * offers under full cover, or else the minimum amounts (there is room, but the rest is below every
 * minimum that could take it).
 */
function* diagnose(
  problem: PlanProblem,
  placed: number,
  totals: PlanTotals,
  q: PlanQuery,
  eligible: readonly CatalogOffer[],
  budget: SearchBudget | undefined,
): Generator<void, UnplacedReason, void> {
  const unlimited = yield* planSearch(
    { ...problem, maxParts: Math.max(1, problem.candidates.length), placementOnly: true },
    budget,
  );
  if (unlimited.placed > placed) {
    return {
      code: 'max_offers',
      message:
        `${q.maxOffers} offer${q.maxOffers === 1 ? '' : 's'} can place ${euros(totals.placed)} ` +
        `under full cover; more offers could place ${euros(new Decimal(unlimited.placed))}.`,
    };
  }
  if (q.flexibleShare.isPositive()) {
    const free = yield* planSearch({ ...problem, maxNonFlexible: problem.total, placementOnly: true }, budget);
    if (free.placed > placed) {
      const reserve = q.amount.times(q.flexibleShare).div(HUNDRED);
      return {
        code: 'flexible_capacity',
        message:
          `${q.flexibleShare.toString()} % of the amount (${euros(reserve)}) must ` +
          `go to flexible accounts, and the eligible flexible accounts cannot take ` +
          `all of it under full cover.`,
      };
    }
  }
  // Room under full cover, minimums ignored: per institution its limit or what its offers take.
  const room = new Map<CatalogInstitution, Decimal>();
  for (const offer of eligible) {
    const { limit } = offer.institution.dgs;
    const before = room.get(offer.institution) ?? ZERO;
    room.set(offer.institution, offer.maxAmount === null ? limit : Decimal.min(limit, before.plus(offer.maxAmount)));
  }
  const capacity = [...room.values()].reduce((sum, r) => sum.plus(r), ZERO);
  if (capacity.lt(q.amount)) {
    return {
      code: 'insufficient_capacity',
      message:
        `The eligible offers take at most ${euros(capacity)} under full deposit-guarantee ` +
        `cover (each institution's limit, each offer's maximum); ${euros(totals.unplaced)} ` +
        `cannot be placed.`,
    };
  }
  return {
    code: 'minimum_amounts',
    message: `The remaining ${euros(totals.unplaced)} is below the minimum amount of every offer that has room for it.`,
  };
}
