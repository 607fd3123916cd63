// Shapes the catalogue's modules hand each other: the plan history's and the change events' records
// (history.ts reads them, the impact and the change feed use them), an event's impact basis
// (impact-basis.ts makes it, the calculation service and the change feed use it) and what ranking
// needs of an offer's calculation (calc-service.ts makes it, sort.ts orders by it). They live here, below
// all of them, so that the modules that make a shape and those that use it need not import each other.
import type { Decimal } from '../domain/decimal.js';
import type { CalcTerms, OfferType, Promotion, Tier } from '../domain/types.js';
import type { RateType, TierMode } from '../domain/vocabulary.js';
import type { NewEvent } from '../ingest/diff.js';

export interface PlanItem {
  id: number;
  offerId: string;
  offer: { id: string; name: string; type: OfferType; brand: { id: string; name: string; country: string } };
  validFrom: Date;
  validTo: Date | null;
  observedAt: Date;
  headlineRate: Decimal;
  rateType: RateType;
  tierMode: TierMode;
  tiers: Tier[];
  promotion: Promotion | null;
  sourceId: string;
}

/** A stored change event: what the ingest wrote (NewEvent), with its id and its time as a Date. */
export interface EventItem extends Omit<NewEvent, 'at'> {
  id: number;
  at: Date;
}

export interface ImpactBasis {
  /** The term for deposits; null: the horizon applies (flexible and notice accounts). */
  termMonths: number | null;
  before: CalcTerms;
  after: CalcTerms;
  /** Identifies the pair and the offer's terms, for the memo of results. */
  key: string;
}

export type { RankYields } from '../domain/types.js';
