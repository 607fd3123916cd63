// An offer as a list, a detail or a plan shows it: calculated for one request.
import type { Decimal } from '../domain/decimal.js';
import type { PresentedCalc } from '../domain/present.js';
import type { CalcSummary, DgsSplit, RankYields } from '../domain/types.js';
import type { CalcService } from './calc-service.js';
import type { ProductQuery } from './query.js';
import type { CatalogOffer } from './types.js';

export type IneligibleReason = 'below_minimum' | 'above_maximum';

type CalcQuery = Pick<ProductQuery, 'amount' | 'horizon' | 'promotions'>;

/**
 * An offer as shown: its shown values from floats where they decide every cent, its exact summary made
 * only when something reads it (a savings plan's totals, a row the floats leave undecided). A class: a
 * list makes one per row, and an object literal with getters makes its accessors anew each time.
 */
export class CalculatedOffer {
  #summary: CalcSummary | undefined;
  readonly #calcs: CalcService;
  readonly #q: CalcQuery;
  readonly #yields: RankYields | undefined;
  readonly shown: PresentedCalc | null;
  constructor(
    calcs: CalcService,
    q: CalcQuery,
    readonly offer: CatalogOffer,
    yields: RankYields | undefined,
    readonly covered: Decimal,
    readonly eligible: boolean,
    readonly ineligibleReason: IneligibleReason | null,
    readonly dgs: DgsSplit,
  ) {
    this.#calcs = calcs;
    this.#q = q;
    this.#yields = yields;
    this.shown = calcs.presented(offer, q.amount, q.horizon, q.promotions);
  }
  get calc(): CalcSummary {
    return (this.#summary ??= this.#calcs.summary(this.offer, this.#q.amount, this.#q.horizon, this.#q.promotions));
  }
  /** The ranked yields, or the summary's (it holds them too). */
  get yields(): RankYields {
    return this.#yields ?? this.calc;
  }
}
