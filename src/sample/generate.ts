// Daily snapshots (contract §9) of the fictional sample market, deterministic from the options: the
// same (seed, days, end, scale) always gives the same snapshots, byte for byte once serialised.
//
// The model, in short. A central-bank-like policy rate falls in 0.25-point steps and then stays
// flat; a yield-curve factor scales the term premium of deposits. Every offer has a reference rate
// (its best tier) = beta × policy + its own offset + term premium + a slowly drifting spread + noise,
// rounded to the offer's price step. An offer reprices only now and then: at random moments 20–90
// days apart, and a few days after a policy step (most offers follow it, some wait for their next
// repricing). Promotions run for weeks or months and then leave the plan. Offers appear, a few
// disappear, a couple come back. Sources fail now and then for a few days; their offers are then
// shown as last seen (plan, attributes and checkedAt unchanged), as a scraper would have them.
import { Decimal, toFixed2 } from '../domain/decimal.js';
import type {
  Snapshot,
  SnapshotBrand,
  SnapshotInstitution,
  SnapshotOffer,
  SnapshotPlan,
  SnapshotSource,
} from '../ingest/snapshot.js';
import {
  BRANDS,
  COMPARISON_SOURCE_ID,
  DEPOSIT_TERMS,
  DGS_LIMIT,
  INSTITUTIONS,
  MANUAL_SOURCE_ID,
  NOTICE_DAYS,
  PARTNERS,
  PRODUCT_NAMES,
  SOURCE_ERRORS,
  SOURCES,
  countryOf,
  dgsRegisterUrl,
  dgsSchemeName,
  institutionOf,
  officialSourceId,
  type BrandDef,
  type InstitutionDef,
  type PartnerDef,
  type Profile,
} from './market.js';
import { Rng, hash32 } from './random.js';
import { DAY_MS } from '../domain/days.js';

export interface SampleOptions {
  seed: number;
  /** Number of daily snapshots. */
  days: number;
  /** The last day, YYYY-MM-DD (UTC). */
  end: string;
  /** Multiplies the number of offers; copies after the first get an id suffix `-x2`, `-x3`… */
  scale: number;
  /**
   * The clock when the snapshots are made (ISO date-time): no snapshot is dated after it. The ingest
   * refuses snapshots from the future, and one would lock out every real snapshot before its time
   * (issue 19). Absent: every day is observed at 06:00, as in tests that pass an `end` in the past.
   */
  notAfter?: string;
}

export const SAMPLE_LIMITS = {
  seed: { min: 0, max: 0xffffffff },
  days: { min: 1, max: 3650 },
  scale: { min: 1, max: 100 },
} as const;

const OBSERVED_HOUR_MS = 6 * 3_600_000;
/** No rate, promotion included, goes above 4.50 %. */
const MAX_BP = 450;

type OfferType = SnapshotOffer['type'];
type Payout = SnapshotOffer['payout'];
type Channel = SnapshotOffer['channel'];
type Withholding = SnapshotOffer['withholding'];
type Promotion = NonNullable<SnapshotPlan['promotion']>;

// --- Options and days -------------------------------------------------------------------------

/** Midnight UTC of a YYYY-MM-DD day in milliseconds, or null when it is not a real date. */
export function parseDay(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === day ? ms : null;
}

/** Every problem with the options, as messages naming the option; empty when they are fine. */
export function sampleOptionErrors(o: SampleOptions): string[] {
  const errors: string[] = [];
  for (const name of ['seed', 'days', 'scale'] as const) {
    const { min, max } = SAMPLE_LIMITS[name];
    const v = o[name];
    if (!Number.isInteger(v) || v < min || v > max)
      errors.push(`${name} must be an integer from ${min} to ${max} (got ${v})`);
  }
  const endMs = parseDay(o.end);
  if (endMs === null) errors.push(`end must be a date YYYY-MM-DD (got ${JSON.stringify(o.end)})`);
  else if (Number.isInteger(o.days) && endMs - (o.days - 1) * DAY_MS < Date.UTC(1990, 0, 1))
    errors.push('days must not reach back from end to before 1990-01-01');
  if (o.notAfter !== undefined) {
    const clockMs = Date.parse(o.notAfter);
    if (Number.isNaN(clockMs)) errors.push(`notAfter must be an ISO date-time (got ${JSON.stringify(o.notAfter)})`);
    else if (endMs !== null && endMs > clockMs)
      errors.push(
        `end must not be after today (${o.notAfter.slice(0, 10)}): snapshots from the future are refused by the ingest`,
      );
  }
  return errors;
}

// --- Money and rates: integers in, Decimal-formatted strings out -----------------------------

const rateOf = (bp: number): string => toFixed2(new Decimal(bp).div(100));
const euros = (amount: number): string => toFixed2(new Decimal(amount));
const moneyOfCents = (cents: number): string => toFixed2(new Decimal(cents).div(100));
const iso = (ms: number): string => new Date(ms).toISOString();
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

// --- The market path: policy rate and curve, one value per day ------------------------------

interface MarketPath {
  policyBp: number[];
  /** Scales the deposits' term premium, in percent (100 = the table as is). */
  curvePct: number[];
  isStep: boolean[];
}

function marketPath(rng: Rng, days: number): MarketPath {
  // Falls from 2.25–3.50 % by three to five cuts to 1.50–2.25 %.
  const cuts = rng.int(3, 5);
  const startBp = 25 * (rng.int(6, 9) + cuts);
  // The cuts fall in the first two thirds of the period, roughly evenly spaced; then it stays flat.
  const window = Math.floor(days * 0.65);
  const stepDays: number[] = [];
  for (let i = 0; i < cuts; i++) {
    const spacing = window / cuts;
    const jitter = Math.floor(spacing / 4);
    const day = Math.max(1, Math.floor((i + 0.5) * spacing) + rng.int(-jitter, jitter));
    if (day < days && day > (stepDays[stepDays.length - 1] ?? 0)) stepDays.push(day);
  }
  const policyBp: number[] = [];
  const curvePct: number[] = [];
  const isStep: boolean[] = [];
  let policy = startBp;
  let curve = 100 + rng.int(-20, 20);
  for (let d = 0; d < days; d++) {
    const step = stepDays.includes(d);
    if (step) {
      policy = Math.max(0, policy - 25);
      curve = clamp(curve + rng.int(-12, 15), 50, 160);
    }
    policyBp.push(policy);
    curvePct.push(curve);
    isStep.push(step);
  }
  return { policyBp, curvePct, isStep };
}

/** Term premium over 12 months in basis points, before the curve factor. */
const TERM_PREMIUM_BP: ReadonlyMap<number, number> = new Map([
  [1, -35],
  [3, -20],
  [6, -10],
  [9, -5],
  [12, 0],
  [18, 5],
  [24, 10],
  [36, 18],
  [48, 24],
  [60, 30],
  [84, 36],
  [120, 42],
]);

/** How often a brand of each size carries a deposit of each term (large brands: nearly all). */
const TERM_WEIGHT: ReadonlyMap<number, number> = new Map([
  [1, 0.4],
  [3, 0.7],
  [6, 0.9],
  [9, 0.5],
  [12, 1],
  [18, 0.6],
  [24, 0.9],
  [36, 0.8],
  [48, 0.5],
  [60, 0.8],
  [84, 0.35],
  [120, 0.35],
]);

const PROFILE_PREMIUM_BP: Readonly<Record<Profile, number>> = { incumbent: -35, regular: 0, challenger: 40 };

// --- The catalogue: every offer's fixed attributes -------------------------------------------

interface TierDef {
  from: string;
  to: string | null;
  offsetBp: number;
}

interface OfferDef {
  index: number;
  id: string;
  brandId: string;
  name: string;
  type: OfferType;
  termMonths: number | null;
  noticeDays: number | null;
  channel: Channel;
  platform: string | null;
  payout: Payout;
  minAmount: string;
  maxAmount: string | null;
  currentAccountRequired: boolean;
  annualFee: string;
  earlyWithdrawal: boolean;
  interestCompounds: boolean;
  withholding: Withholding;
  sourceId: string;
  sourceUrl: string;
  official: boolean;
  confirmed: boolean;
  rateType: SnapshotPlan['rateType'];
  tierMode: SnapshotPlan['tierMode'];
  tiers: readonly TierDef[];
  // pricing
  betaPct: number;
  offsetBp: number;
  termPremiumBp: number;
  stepBp: number;
  reactChance: number;
  reactMaxLag: number;
  promoProne: boolean;
  // lifecycle
  /** Half-open [from, to) day ranges in which the offer exists. */
  spans: readonly (readonly [number, number])[];
  openAtStart: boolean;
  closesToNewCustomersOn: number | null;
}

interface Product {
  type: OfferType;
  termMonths: number | null;
  noticeDays: number | null;
  slug: string;
  name: string;
}

function brandProducts(brand: BrandDef, rng: Rng): Product[] {
  const names = PRODUCT_NAMES[countryOf(brand.country).lang];
  const products: Product[] = [];
  const flexCount = brand.size === 'large' ? 2 : brand.size === 'medium' ? rng.int(1, 2) : rng.chance(0.75) ? 1 : 0;
  rng.sample(names.flexible, flexCount).forEach((name, i) => {
    products.push({
      type: 'flexible',
      termMonths: null,
      noticeDays: null,
      slug: i === 0 ? 'flex' : `flex-${i + 1}`,
      name,
    });
  });
  const noticeCount =
    brand.size === 'large' ? rng.int(0, 2) : brand.size === 'medium' ? rng.int(0, 1) : rng.chance(0.25) ? 1 : 0;
  for (const days of rng.sample(NOTICE_DAYS, noticeCount)) {
    products.push({
      type: 'notice',
      termMonths: null,
      noticeDays: days,
      slug: `notice-${days}d`,
      name: names.notice(days),
    });
  }
  const share = brand.size === 'large' ? 1 : brand.size === 'medium' ? 0.7 : 0.4;
  for (const term of DEPOSIT_TERMS) {
    const p = brand.size === 'large' ? 0.92 : share * (TERM_WEIGHT.get(term) ?? 0);
    if (rng.chance(p))
      products.push({
        type: 'deposit',
        termMonths: term,
        noticeDays: null,
        slug: `term-${term}m`,
        name: names.deposit(term),
      });
  }
  if (products.length === 0)
    products.push({ type: 'deposit', termMonths: 12, noticeDays: null, slug: 'term-12m', name: names.deposit(12) });
  return products;
}

function pickPayout(rng: Rng, p: Product): Payout {
  if (p.type === 'flexible')
    return rng.weighted<Payout>([
      ['MONTHLY', 45],
      ['QUARTERLY', 20],
      ['ANNUALLY', 30],
      ['OTHER', 5],
    ]);
  if (p.type === 'notice')
    return rng.weighted<Payout>([
      ['MONTHLY', 35],
      ['QUARTERLY', 20],
      ['ANNUALLY', 40],
      ['OTHER', 5],
    ]);
  const term = p.termMonths ?? 12;
  if (term <= 12) {
    return rng.weighted<Payout>([
      ['AT_MATURITY', 70],
      ['MONTHLY', 12],
      ['QUARTERLY', term >= 6 ? 6 : 0],
      ['ANNUALLY', term === 12 ? 8 : 0],
      ['OTHER', 4],
    ]);
  }
  return rng.weighted<Payout>([
    ['ANNUALLY', 55],
    ['AT_MATURITY', 33],
    ['MONTHLY', 6],
    ['QUARTERLY', 4],
    ['OTHER', 2],
  ]);
}

function pickTiers(rng: Rng, type: OfferType): { tierMode: SnapshotPlan['tierMode']; tiers: TierDef[] } {
  const count =
    type === 'deposit'
      ? rng.weighted([
          [1, 85],
          [2, 15],
        ])
      : rng.weighted([
          [1, 55],
          [2, 33],
          [3, 12],
        ]);
  if (count === 1)
    return { tierMode: rng.chance(0.75) ? 'whole' : 'marginal', tiers: [{ from: euros(0), to: null, offsetBp: 0 }] };
  const bounds =
    count === 2
      ? [
          rng.weighted([
            [10_000, 15],
            [25_000, 35],
            [50_000, 25],
            [100_000, 25],
          ]),
        ]
      : rng.pick([
          [10_000, 50_000],
          [25_000, 100_000],
          [50_000, 250_000],
        ]);
  // Either larger balances earn more (rising), or the bank discourages large balances (falling).
  const rising = type === 'deposit' || rng.chance(0.6);
  const offsets = rising
    ? count === 2
      ? [-5 * rng.int(1, 10), 0]
      : (() => {
          const b = 5 * rng.int(1, 6);
          return [-b - 5 * rng.int(1, 6), -b, 0];
        })()
    : count === 2
      ? [0, -25 * rng.int(2, 8)]
      : (() => {
          const a = 25 * rng.int(1, 3);
          return [0, -a, -a - 25 * rng.int(2, 5)];
        })();
  const edges = [0, ...bounds];
  const tiers = edges.map((from, i) => {
    const to = edges[i + 1];
    return { from: euros(from), to: to === undefined ? null : euros(to), offsetBp: offsets[i] ?? 0 };
  });
  return { tierMode: rng.chance(0.5) ? 'whole' : 'marginal', tiers };
}

function pickMinAmount(rng: Rng, type: OfferType): number {
  if (type === 'flexible')
    return rng.weighted([
      [1, 75],
      [500, 10],
      [1_000, 10],
      [5_000, 5],
    ]);
  if (type === 'notice')
    return rng.weighted([
      [1, 40],
      [1_000, 40],
      [5_000, 20],
    ]);
  return rng.weighted([
    [1, 10],
    [500, 15],
    [1_000, 40],
    [5_000, 25],
    [10_000, 10],
  ]);
}

function pickMaxAmount(rng: Rng, viaPartner: boolean): number | null {
  if (viaPartner)
    return rng.weighted<number | null>([
      [100_000, 60],
      [250_000, 15],
      [1_000_000, 10],
      [null, 15],
    ]);
  return rng.weighted<number | null>([
    [null, 50],
    [100_000, 20],
    [250_000, 12],
    [500_000, 8],
    [1_000_000, 10],
  ]);
}

function pickWithholding(rng: Rng, inst: InstitutionDef): Withholding {
  const w = countryOf(inst.country).withholding;
  if (w && rng.chance(w.share)) return Object.freeze({ kind: w.kind, rate: w.rate, reducedRate: w.reducedRate });
  return Object.freeze({ kind: 'none', rate: null, reducedRate: null });
}

function confirmedFor(rng: Rng, kind: 'official' | 'aggregator' | 'manual'): boolean {
  return rng.chance(kind === 'manual' ? 0.9 : kind === 'official' ? 0.55 : 0.3);
}

const sourceKind = new Map(SOURCES.map((s) => [s.id, s.kind]));

interface CatalogueContext {
  root: Rng;
  days: number;
  copy: number;
  instPremiumBp: ReadonlyMap<string, number>;
}

function makeOffer(
  ctx: CatalogueContext,
  brand: BrandDef,
  product: Product,
  partner: PartnerDef | null,
  rng: Rng,
  index: number,
): OfferDef {
  const inst = institutionOf(brand);
  const suffix = ctx.copy === 0 ? '' : `-x${ctx.copy + 1}`;
  const localId = `${product.slug}${partner ? `-${partner.key}` : ''}`;
  const id = `${brand.id}-${localId}${suffix}`;
  const name = ctx.copy === 0 ? product.name : `${product.name} #${ctx.copy + 1}`;
  const type = product.type;

  let sourceId: string;
  let sourceUrl: string;
  if (partner) {
    sourceId = rng.chance(0.92) ? partner.sourceId : MANUAL_SOURCE_ID;
    sourceUrl =
      sourceId === MANUAL_SOURCE_ID
        ? `https://example.org/manual-research/${id}`
        : `https://example.com/${partner.id}/offers/${id}`;
  } else {
    sourceId = rng.weighted([
      [officialSourceId(inst.id), 85],
      [COMPARISON_SOURCE_ID, 8],
      [MANUAL_SOURCE_ID, 7],
    ]);
    sourceUrl =
      sourceId === MANUAL_SOURCE_ID
        ? `https://example.org/manual-research/${id}`
        : sourceId === COMPARISON_SOURCE_ID
          ? `https://example.com/rentevergelijker-example/${id}`
          : `https://example.org/${inst.id}/${brand.id}/${localId}${suffix}`;
  }
  const kind = sourceKind.get(sourceId) ?? 'manual';

  const payout = pickPayout(rng, product);
  const interestCompounds = type !== 'deposit' || payout === 'AT_MATURITY' || rng.chance(0.25);
  const { tierMode, tiers } = pickTiers(rng, type);
  const minAmount = pickMinAmount(rng, type);
  const maxAmount = pickMaxAmount(rng, partner !== null);
  const feeChance = partner?.channel === 'platform' ? 0.15 : 0.06;
  const annualFee = rng.chance(feeChance) ? rng.pick([250, 500, 1_000, 1_200, 1_500, 2_500]) : 0;
  const rateType =
    type === 'flexible'
      ? 'variable'
      : type === 'notice'
        ? rng.chance(0.9)
          ? 'variable'
          : 'fixed'
        : rng.chance(0.96)
          ? 'fixed'
          : 'variable';

  const channelPremium = partner === null ? 0 : partner.channel === 'aggregator' ? 12 : 8;
  const typeOffset =
    type === 'flexible' ? -25 : type === 'notice' ? -15 + Math.round(((product.noticeDays ?? 0) * 30) / 365) : 5;
  const offsetBp = typeOffset + (ctx.instPremiumBp.get(inst.id) ?? 0) + channelPremium + Math.round(rng.normal(0, 12));
  const variable = rateType === 'variable';
  const slow = inst.profile === 'incumbent';

  // Lifecycle: most offers exist from the first day; some launch later, a few are withdrawn and
  // a couple of those come back.
  const life = ctx.root.fork('life', id);
  const days = ctx.days;
  let start = 0;
  if (days >= 2 && life.chance(0.06)) start = life.int(1, days - 1);
  const spans: [number, number][] = [[start, days]];
  if (days - start >= 3 && life.chance(0.045)) {
    const end = life.int(start + 1, days - 1);
    spans[0] = [start, end];
    if (life.chance(0.2)) {
      const back = end + life.int(10, 60);
      if (back < days) spans.push([back, days]);
    }
  }
  const openAtStart = !life.chance(0.04);
  const closesToNewCustomersOn =
    openAtStart && days >= 5 && life.chance(0.03) ? life.int(Math.floor(days * 0.2) + 1, days - 1) : null;

  return {
    index,
    id,
    brandId: brand.id,
    name,
    type,
    termMonths: product.termMonths,
    noticeDays: product.noticeDays,
    channel: partner?.channel ?? 'direct',
    platform: partner?.name ?? null,
    payout,
    minAmount: euros(minAmount),
    maxAmount: maxAmount === null ? null : euros(maxAmount),
    currentAccountRequired: partner === null && rng.chance(inst.profile === 'incumbent' ? 0.3 : 0.08),
    annualFee: moneyOfCents(annualFee),
    earlyWithdrawal: type !== 'deposit' || rng.chance(0.3),
    interestCompounds,
    withholding: pickWithholding(rng, inst),
    sourceId,
    sourceUrl,
    official: kind === 'official',
    confirmed: confirmedFor(rng, kind),
    rateType,
    tierMode,
    tiers,
    betaPct: type === 'flexible' ? rng.int(45, 85) : type === 'notice' ? rng.int(60, 90) : rng.int(80, 100),
    offsetBp,
    termPremiumBp: product.termMonths === null ? 0 : (TERM_PREMIUM_BP.get(product.termMonths) ?? 0),
    stepBp: rng.weighted([
      [5, 70],
      [1, 20],
      [10, 10],
    ]),
    reactChance: variable ? 0.9 : 0.75,
    reactMaxLag: (variable ? 5 : 12) + (slow ? 9 : 0),
    promoProne:
      rng.chance(type === 'flexible' ? 0.35 : type === 'notice' ? 0.15 : 0.05) || (start > 0 && rng.chance(0.5)),
    spans,
    openAtStart,
    closesToNewCustomersOn,
  };
}

function buildCatalogue(root: Rng, days: number, scale: number): OfferDef[] {
  const instPremiumBp = new Map(
    INSTITUTIONS.map((i) => [
      i.id,
      PROFILE_PREMIUM_BP[i.profile] + Math.round(root.fork('institution', i.id).normal(0, 12)),
    ]),
  );
  const offers: OfferDef[] = [];
  for (let copy = 0; copy < scale; copy++) {
    const ctx: CatalogueContext = { root, days, copy, instPremiumBp };
    for (const brand of BRANDS) {
      const rng = root.fork('catalogue', copy, brand.id);
      const products = brandProducts(brand, rng);
      // Which platforms resell this brand: all of a partners-only brand's products go through one or
      // two; other brands list a selection, challengers most often.
      const profile = institutionOf(brand).profile;
      const listP = brand.partnersOnly ? 1 : profile === 'challenger' ? 0.8 : profile === 'regular' ? 0.35 : 0.1;
      const partners = rng.chance(listP)
        ? rng.sample(
            PARTNERS,
            rng.weighted([
              [1, 70],
              [2, 30],
            ]),
          )
        : [];
      for (const product of products) {
        if (!brand.partnersOnly) offers.push(makeOffer(ctx, brand, product, null, rng, offers.length));
        for (const partner of partners) {
          if (brand.partnersOnly || rng.chance(product.type === 'deposit' ? 0.5 : 0.4)) {
            offers.push(makeOffer(ctx, brand, product, partner, rng, offers.length));
          }
        }
      }
    }
  }
  return offers;
}

// --- Offer dynamics ---------------------------------------------------------------------------

interface Campaign {
  kind: Promotion['kind'];
  rateBp: number;
  months: number;
  maxBalance: string | null;
  /** The first day without the promotion. */
  untilDay: number;
}

interface OfferState {
  rng: Rng;
  refBp: number;
  spreadBp: number;
  noiseBp: number;
  nextReprice: number;
  reactDay: number;
  campaign: Campaign | null;
  nextCampaign: number;
  plan: SnapshotPlan;
  /** What the last snapshot showed (null: not shown); repeated while the source is failing. */
  shown: SnapshotOffer | null;
}

function targetBp(
  def: OfferDef,
  st: Pick<OfferState, 'spreadBp' | 'noiseBp' | 'campaign'>,
  path: MarketPath,
  day: number,
): number {
  const raw =
    ((path.policyBp[day] ?? 0) * def.betaPct) / 100 +
    def.offsetBp +
    (def.termPremiumBp * (path.curvePct[day] ?? 100)) / 100 +
    st.spreadBp +
    st.noiseBp;
  const cap = MAX_BP - (st.campaign?.kind === 'bonus' ? st.campaign.rateBp : 0);
  return clamp(Math.round(raw / def.stepBp) * def.stepBp, 0, cap);
}

function buildPlan(def: OfferDef, refBp: number, c: Campaign | null): SnapshotPlan {
  let bestBp = 0;
  const tiers = def.tiers.map((t) => {
    const bp = Math.max(0, refBp + t.offsetBp);
    bestBp = Math.max(bestBp, bp);
    return Object.freeze({ from: t.from, to: t.to, rate: rateOf(bp) });
  });
  const promotion = c
    ? Object.freeze({ kind: c.kind, rate: rateOf(c.rateBp), months: c.months, maxBalance: c.maxBalance })
    : null;
  const headlineBp = c === null ? bestBp : c.kind === 'bonus' ? bestBp + c.rateBp : Math.max(bestBp, c.rateBp);
  return Object.freeze({
    headlineRate: rateOf(headlineBp),
    rateType: def.rateType,
    tierMode: def.tierMode,
    tiers: Object.freeze(tiers) as SnapshotPlan['tiers'],
    promotion,
  });
}

/** A campaign starting on `day`, or null when the current rate leaves no room for one. */
function newCampaign(def: OfferDef, st: Pick<OfferState, 'rng' | 'refBp'>, day: number): Campaign | null {
  const r = st.rng;
  const kind: Promotion['kind'] = r.chance(def.type === 'deposit' ? 0.85 : 0.65) ? 'bonus' : 'replace';
  let rateBp: number;
  if (kind === 'bonus') {
    rateBp = Math.min(r.pick([10, 20, 25, 30, 40, 50, 60, 75, 100, 125, 150]), MAX_BP - st.refBp);
    if (rateBp < 10) return null;
  } else {
    rateBp = Math.min(st.refBp + 5 * r.int(5, 30), MAX_BP);
    if (rateBp <= st.refBp) return null;
  }
  const months = def.termMonths === null ? r.pick([3, 6, 6, 12, 12]) : Math.min(def.termMonths, r.pick([3, 6, 12]));
  const maxBalance = r.chance(0.45) ? null : euros(r.pick([25_000, 50_000, 100_000, 250_000]));
  return { kind, rateBp, months, maxBalance, untilDay: day + r.int(30, 120) };
}

function initialState(def: OfferDef, root: Rng, path: MarketPath): OfferState {
  const rng = root.fork('offer', def.id);
  const st: Omit<OfferState, 'plan'> = {
    rng,
    refBp: 0,
    spreadBp: 0,
    noiseBp: Math.round(rng.normal(0, 6)),
    nextReprice: rng.int(1, 90),
    reactDay: -1,
    campaign: null,
    nextCampaign: Number.POSITIVE_INFINITY,
    shown: null,
  };
  st.refBp = targetBp(def, st, path, 0);
  if (def.promoProne) {
    const launch = def.spans[0]?.[0] ?? 0;
    if (launch > 0 || rng.chance(0.35)) {
      // Launched with a promotion, or one already running on day 0.
      st.campaign = newCampaign(def, st, launch);
      if (st.campaign && launch === 0) st.campaign.untilDay = rng.int(5, 100);
    }
    st.nextCampaign = st.campaign ? Number.POSITIVE_INFINITY : rng.int(1, 150);
  }
  return { ...st, plan: buildPlan(def, st.refBp, st.campaign) };
}

/** Moves an offer to `day`: promotions end and start, then any repricing; a new plan when anything changed. */
function advance(def: OfferDef, st: OfferState, path: MarketPath, day: number): void {
  const r = st.rng;
  let changed = false;
  if (st.campaign && day >= st.campaign.untilDay) {
    st.campaign = null;
    st.nextCampaign = day + r.int(30, 180);
    changed = true;
  } else if (!st.campaign && day >= st.nextCampaign) {
    st.campaign = newCampaign(def, st, day);
    st.nextCampaign = st.campaign ? Number.POSITIVE_INFINITY : day + r.int(30, 180);
    changed = st.campaign !== null;
  }
  if (path.isStep[day] && r.chance(def.reactChance)) st.reactDay = day + r.int(1, def.reactMaxLag);
  let reprice = false;
  if (day === st.nextReprice) {
    // A routine review: the spread drifts a little and the price picks up fresh noise.
    st.spreadBp = clamp(st.spreadBp + Math.round(r.normal(0, 6)), -40, 40);
    st.noiseBp = Math.round(r.normal(0, 6));
    st.nextReprice = day + r.int(20, 90);
    reprice = true;
  }
  if (day === st.reactDay) reprice = true;
  if (reprice) {
    const next = targetBp(def, st, path, day);
    // Banks do not move a rate by a basis point or two.
    if (Math.abs(next - st.refBp) >= 3) {
      st.refBp = next;
      changed = true;
    }
  }
  if (changed) st.plan = buildPlan(def, st.refBp, st.campaign);
}

const isActive = (def: OfferDef, day: number): boolean => def.spans.some(([from, to]) => day >= from && day < to);

// --- Sources, institutions, brands ------------------------------------------------------------

/** Per source, per day: the error of an outage, or null. Day 0 never fails, so every offer is seen once. */
function outageCalendar(root: Rng, days: number): Map<string, (string | null)[]> {
  const calendar = new Map<string, (string | null)[]>();
  for (const source of SOURCES) {
    const errors: (string | null)[] = new Array<string | null>(days).fill(null);
    if (source.kind !== 'manual') {
      const r = root.fork('outages', source.id);
      const perDay = source.kind === 'official' ? 1 / 220 : 1 / 150;
      for (let d = 1; d < days; d++) {
        if (!r.chance(perDay)) continue;
        const message = r.pick(SOURCE_ERRORS);
        for (let k = r.int(1, 6); k > 0 && d < days; k--) errors[d++] = message;
      }
    }
    calendar.set(source.id, errors);
  }
  return calendar;
}

function institutionOn(inst: InstitutionDef, startMs: number, verifiedOnDay: number, day: number): SnapshotInstitution {
  const verified = inst.dgs === 'verified' || (inst.dgs === 'becomes-verified' && day >= verifiedOnDay);
  // The late one was checked in the register the afternoon before the snapshot that first shows it.
  const verifiedAt =
    inst.dgs === 'verified'
      ? iso(startMs - inst.verifiedDaysBeforeStart * DAY_MS)
      : verified
        ? iso(startMs + verifiedOnDay * DAY_MS - 8.5 * 3_600_000)
        : null;
  return {
    id: inst.id,
    name: inst.name,
    country: inst.country,
    lei: inst.lei,
    dgs: {
      scheme: dgsSchemeName(inst.country),
      country: inst.country,
      limit: DGS_LIMIT,
      verified,
      source: verified ? dgsRegisterUrl(inst.country) : null,
      verifiedAt,
    },
  };
}

// --- The generator ----------------------------------------------------------------------------

/**
 * One complete snapshot per day, oldest first, observed at 06:00 UTC, or at `notAfter` when that comes
 * first (a seed started at 03:00 dates today's snapshot 03:00, its crawl just before). Throws a RangeError at once
 * when the options are invalid. Unchanged plans and the offers of a failing source are the same
 * (frozen) objects as the day before: treat the snapshots as read-only.
 */
export function generateSnapshots(options: SampleOptions): Generator<Snapshot> {
  const errors = sampleOptionErrors(options);
  if (errors.length > 0) throw new RangeError(`invalid sample options: ${errors.join('; ')}`);
  return run(options);
}

function* run({ seed, days, end, scale, notAfter }: SampleOptions): Generator<Snapshot> {
  const endMs = parseDay(end) as number;
  const clockMs = notAfter === undefined ? Infinity : Date.parse(notAfter);
  const startMs = endMs - (days - 1) * DAY_MS;
  const root = new Rng(seed);
  const path = marketPath(root.fork('market'), days);
  const outages = outageCalendar(root, days);
  const defs = buildCatalogue(root, days, scale);
  const states = defs.map((def) => initialState(def, root, path));
  const verifiedOnDay = Math.max(1, Math.floor(days * 0.45));
  const seedKey = root.key;

  for (let day = 0; day < days; day++) {
    const dayMs = startMs + day * DAY_MS;
    const observedMs = Math.min(dayMs + OBSERVED_HOUR_MS, clockMs);
    if (day > 0) {
      for (const [i, def] of defs.entries()) advance(def, states[i] as OfferState, path, day);
    }

    const sources: SnapshotSource[] = SOURCES.map((s) => {
      const error = outages.get(s.id)?.[day] ?? null;
      return { id: s.id, name: s.name, kind: s.kind, url: s.url, status: error === null ? 'ok' : 'failing', error };
    });
    const institutions = INSTITUTIONS.map((inst) => institutionOn(inst, startMs, verifiedOnDay, day));
    const brands: SnapshotBrand[] = BRANDS.map((b) => ({
      id: b.id,
      name: b.name,
      country: b.country,
      website: b.website,
      institutionId: b.institutionId,
    }));

    // Each source is crawled in one run that started a few minutes to ~45 minutes before 06:00.
    const crawlStart = new Map<string, number>();
    const offers: SnapshotOffer[] = [];
    defs.forEach((def, i) => {
      const st = states[i] as OfferState;
      if (outages.get(def.sourceId)?.[day]) {
        if (st.shown) offers.push(st.shown);
        return;
      }
      if (!isActive(def, day)) {
        st.shown = null;
        return;
      }
      let started = crawlStart.get(def.sourceId);
      if (started === undefined) {
        started = observedMs - (300 + (hash32(seedKey, 'crawl', def.sourceId, day) % 2400)) * 1000;
        crawlStart.set(def.sourceId, started);
      }
      const checkedAt = iso(started + (hash32(seedKey, 'check', def.index, day) % 240) * 1000);
      const open = def.openAtStart && (def.closesToNewCustomersOn === null || day < def.closesToNewCustomersOn);
      st.shown = Object.freeze({
        id: def.id,
        brandId: def.brandId,
        name: def.name,
        type: def.type,
        termMonths: def.termMonths,
        noticeDays: def.noticeDays,
        channel: def.channel,
        platform: def.platform,
        payout: def.payout,
        minAmount: def.minAmount,
        maxAmount: def.maxAmount,
        openToNewCustomers: open,
        currentAccountRequired: def.currentAccountRequired,
        annualFee: def.annualFee,
        earlyWithdrawal: def.earlyWithdrawal,
        interestCompounds: def.interestCompounds,
        withholding: def.withholding,
        sourceId: def.sourceId,
        sourceUrl: def.sourceUrl,
        checkedAt,
        official: def.official,
        confirmed: def.confirmed,
        plan: st.plan,
      });
      offers.push(st.shown);
    });

    yield { observedAt: iso(observedMs), complete: true, sources, institutions, brands, offers };
  }
}
