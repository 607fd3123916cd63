// The in-memory catalogue: active offers with their current plan, brands and institutions, as plain
// data with Decimals, loaded once per data version. Everything a list request needs is in here.
import type { Decimal } from '../domain/decimal.js';
import type { LedgerEntry } from '../ingest/ledger.js';
import type {
  CalcTerms,
  Channel,
  DgsScheme,
  OfferType,
  Payout,
  Promotion,
  RateType,
  Tier,
  TierMode,
  WithholdingKind,
} from '../domain/types.js';

export interface CatalogBrand {
  id: string;
  name: string;
  country: string;
  website: string | null;
  institutionId: string;
}

export interface CatalogDgs extends DgsScheme {
  source: string | null;
  verifiedAt: Date | null;
}

export interface CatalogInstitution {
  id: string;
  name: string;
  country: string;
  lei: string | null;
  dgs: CatalogDgs;
  /** Sorted by name. */
  brands: CatalogBrand[];
}

export interface AmountRange {
  min: number;
  max: number;
}

export interface CatalogOffer {
  id: string;
  name: string;
  type: OfferType;
  brand: CatalogBrand;
  institution: CatalogInstitution;
  channel: Channel;
  platform: string | null;
  termMonths: number | null;
  noticeDays: number | null;
  payout: Payout;
  minAmount: Decimal;
  maxAmount: Decimal | null;
  /** minAmount and maxAmount as numbers (no maximum: Infinity), for eligibility over a whole list. */
  amountRange: AmountRange;
  planId: number;
  rateType: RateType;
  headlineRate: Decimal;
  tierMode: TierMode;
  tiers: Tier[];
  promotion: Promotion | null;
  openToNewCustomers: boolean;
  currentAccountRequired: boolean;
  annualFee: Decimal;
  earlyWithdrawal: boolean;
  interestCompounds: boolean;
  withholding: { kind: WithholdingKind; rate: Decimal | null; reducedRate: Decimal | null };
  freshness: { checkedAt: Date; official: boolean; confirmed: boolean };
  sourceId: string;
  sourceUrl: string | null;
  /** What the calculation needs, resolved once. */
  terms: CalcTerms;
  /** Identifies `terms` by content: offers with identical terms share calculation results. */
  termsKey: string;
  /** A short id for termsKey, the same for equal terms in every catalogue of this process. */
  termsId: number;
  /** Brand, offer and institution names folded for the accent- and case-insensitive search. */
  searchText: string;
  /** The other brands of the same institution (the DGS limit is shared), sorted. */
  sharedWith: string[];
  /** Its value for each facet of the list (pipeline FACETS order), worked out once. */
  facetValues: (string | null)[];
  /** Its decimals as shown (two decimals), formatted once instead of for every answer. */
  shown: ShownOffer;
}

export interface ShownOffer {
  headlineRate: string;
  minAmount: string;
  maxAmount: string | null;
  annualFee: string;
  tiers: { from: string; to: string | null; rate: string }[];
  promotion: { kind: Promotion['kind']; rate: string; months: number; maxBalance: string | null } | null;
  withholding: { kind: WithholdingKind; rate: string | null; reducedRate: string | null };
}

export interface CatalogSource {
  id: string;
  name: string;
  kind: 'official' | 'aggregator' | 'manual';
  url: string;
  status: 'ok' | 'failing';
  lastCheckedAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
}

export interface Catalog {
  /** The data version this catalogue was loaded at; 0 for an empty database. */
  version: number;
  /** When the data last changed (the snapshot time of that change): the same data, the same time. */
  generatedAt: Date;
  /** Active offers, sorted by id. */
  offers: CatalogOffer[];
  byId: ReadonlyMap<string, CatalogOffer>;
  /** Every institution, sorted by name, each with all its brands. */
  institutions: CatalogInstitution[];
  /** Active offers per institution id. */
  offersByInstitution: ReadonlyMap<string, CatalogOffer[]>;
  /** Ids of offers that were removed (known, but no longer offered). */
  removed: ReadonlyMap<string, Date | null>;
  sources: CatalogSource[];
  /** The observedAt of the newest snapshot applied, and when it was applied (null: never). */
  lastObservedAt: Date | null;
  lastIngestAt: Date | null;
  /** This version's ledger entry (null: an empty database). */
  entry: LedgerEntry | null;
  /** Every offer this version knows, removed ones too, as history and events name them. */
  offerFacts: ReadonlyMap<string, OfferFacts>;
}

/** What a plan or event of the past shows of its offer, as the offer stood at the catalogue's version. */
export interface OfferFacts {
  id: string;
  name: string;
  type: OfferType;
  termMonths: number | null;
  brand: { id: string; name: string; country: string };
  institutionId: string;
}
