// Query.plan (GET /api/plan): an amount spread over offers for the best return with every euro covered
// by a verified deposit guarantee. The candidates are what the list shows for the same filters; each
// part is an Offer calculated for its own amount, as the list calculates it. The method and why its
// plan is the best one: docs/calculation.md, "The savings plan".
import { cpuLane, LaneFull } from '../../catalog/lane.js';
import {
  PLAN_DEFAULTS,
  planSteps,
  type PlanContext,
  type PlanQuery,
  type SavingsPlan,
  type UnplacedReason,
} from '../../catalog/plan.js';
import { Decimal } from '../../domain/decimal.js';
import { presentPlanTotals, type PresentedPlanTotals } from '../../domain/plan-totals.js';
import { presentCalc } from '../../domain/present.js';
import { DEFAULTS, PARAM_LIMITS, PARAMS } from '../args.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import { PlanSortEnum, TypeFilterEnum, UnplacedCodeEnum } from '../enums.js';
import { crossRules, filterArgs, filtersOf } from '../filter-args.js';
import { clientError } from '../../request/errors.js';
import { currentLimits } from '../../request/context.js';
import { euros, perYear } from '../scalars.js';
import { CALCULATION_PATH, OfferRef, offerRow } from './offer.js';

type Allocation = SavingsPlan['allocations'][number];

/** Seconds a client refused by a full lane should wait: about what the plans it waits for take. */
const LANE_RETRY_AFTER_SECONDS = 2;

/**
 * A plan is searched in the process's CPU lane: in slices between other requests, stopped when its
 * client goes, refused at once (503, Retry-After) when the lane already runs as many as it may.
 */
async function runPlan(ctx: PlanContext, q: PlanQuery, signal?: AbortSignal): Promise<SavingsPlan> {
  try {
    return await cpuLane.run(planSteps(ctx, q), signal);
  } catch (err) {
    if (!(err instanceof LaneFull)) throw err;
    throw clientError(
      'SERVICE_UNAVAILABLE',
      `This process is already searching ${err.capacity} savings plans; please retry shortly.`,
      { retryAfter: LANE_RETRY_AFTER_SECONDS },
    );
  }
}

const PlanAllocationRef = builder.objectRef<Allocation>('PlanAllocation').implement({
  description:
    'One part of a plan: an offer and the amount put in it, the offer calculated ' +
    'for that amount (its calc and DGS split are those of the part).',
  fields: (t) => ({
    offer: t.field({ type: OfferRef, resolve: (a) => offerRow(a.offer) }),
    amount: t.expose('amount', { type: 'Decimal', description: euros('the part of the amount put in this offer') }),
  }),
});

const PlanTotalsRef = builder.objectRef<PresentedPlanTotals>('PlanTotals').implement({
  description:
    "The plan as a whole. Money totals are the sums of the parts' shown figures, " +
    'so that the rows add up to the cent; the yields are rounded once from ' +
    'the unrounded totals.',
  fields: (t) => ({
    amount: t.expose('amount', { type: 'Decimal', description: euros('the amount asked about') }),
    placed: t.expose('placed', { type: 'Decimal', description: euros('the part of it the plan places') }),
    unplaced: t.expose('unplaced', {
      type: 'Decimal',
      description: euros('the part it cannot place under full deposit-guarantee cover (unplacedReason says why)'),
    }),
    returnPerYear: t.expose('returnPerYear', {
      type: 'Decimal',
      description: euros('the sum of the parts’ returnPerYear: what the plan maximises (sort=return)'),
    }),
    grossInterest: t.expose('grossInterest', {
      type: 'Decimal',
      description: euros('the sum of the parts’ gross interest, each over its own period'),
    }),
    netInterest: t.expose('netInterest', {
      type: 'Decimal',
      description: euros('the sum of the parts’ net interest (after withholding tax and fees)'),
    }),
    comparableYield: t.expose('comparableYield', {
      type: 'Decimal',
      description: perYear('the comparable annual yield of the plan as a whole: returnPerYear over the amount placed'),
    }),
    effectiveRate: t.expose('effectiveRate', {
      type: 'Decimal',
      description: perYear(
        'the net effective annual rate of the plan as a whole: the parts’ rates weighted by their amounts',
      ),
    }),
  }),
});

const UnplacedReasonRef = builder.objectRef<UnplacedReason>('UnplacedReason').implement({
  description: 'Why part of the amount cannot be placed under full deposit-guarantee cover.',
  fields: (t) => ({
    code: t.expose('code', { type: UnplacedCodeEnum }),
    message: t.exposeString('message', { description: 'the reason in words, with the amounts' }),
  }),
});

const SavingsPlanRef = builder.objectRef<SavingsPlan>('SavingsPlan').implement({
  description:
    `An amount spread over offers so that every part is fully covered by its ` +
    `institution's verified deposit guarantee (the parts at one institution, ` +
    `all its brands together, within its limit), each part within its offer's ` +
    `minimum and maximum, in whole euros (the amount's cents go to one part), ` +
    `using at most maxOffers offers and keeping flexibleShare percent in flexible ` +
    `accounts. Of the plans that place the most, the one with the highest total ` +
    `return; how it is found and why it is the best: ${CALCULATION_PATH}.`,
  fields: (t) => ({
    allocations: t.expose('allocations', { type: [PlanAllocationRef], description: 'the parts, largest first' }),
    totals: t.field({
      type: PlanTotalsRef,
      resolve: (p) =>
        presentPlanTotals(
          p.totals,
          p.allocations.map((a) => presentCalc(a.offer.calc)),
        ),
    }),
    unplacedReason: t.expose('unplacedReason', {
      type: UnplacedReasonRef,
      nullable: true,
      description: 'null when the whole amount is placed',
    }),
    optimal: t.exposeBoolean('optimal', {
      description:
        'the search proved that no plan places more, or as much and earns more; ' +
        'false only when a request meets so many near-equal plans that the search stops at its budget',
    }),
    optimalityGap: t.expose('optimalityGap', {
      type: 'Decimal',
      nullable: true,
      description: euros(
        'how much more a year another plan could earn at most: 0.00 when optimal; ' +
          'null when one placing more was not ruled out',
      ),
    }),
    generatedAt: t.expose('generatedAt', {
      type: 'DateTime',
      description:
        'when the data last changed; for an answer that reads the clock (freshness=24h) the instant it was made ' +
        'for. asOf=generatedAt gives the same answer again',
    }),
    method: methodField(t),
  }),
});

const d = PLAN_DEFAULTS;

builder.queryField('plan', (t) =>
  t.field({
    type: SavingsPlanRef,
    description:
      'GET /api/plan: spreads an amount over the offers the list shows for the ' +
      'same filters (verified DGS only) for the highest total return, every part ' +
      'fully covered.',
    args: {
      amount: t.arg({
        type: 'Decimal',
        required: true,
        description: 'the amount in EUR to spread',
        validate: { schema: PARAMS.amount },
      }),
      horizon: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.horizon,
        description: 'months, for flexible and notice accounts',
        validate: { schema: PARAMS.horizon },
      }),
      type: t.arg({
        type: TypeFilterEnum,
        required: true,
        defaultValue: d.type,
        description: 'the types a part may be; default all (the list: flexible)',
      }),
      ...filterArgs(t.arg),
      sort: t.arg({ type: PlanSortEnum, required: true, defaultValue: d.sort }),
      maxOffers: t.arg.int({
        required: true,
        defaultValue: d.maxOffers,
        description: `the most offers the plan may use, 1 to ${PARAM_LIMITS.maxOffers}`,
        validate: { schema: PARAMS.maxOffers },
      }),
      flexibleShare: t.arg({
        type: 'Decimal',
        required: true,
        defaultValue: d.flexibleShare.toString(),
        description: 'percent of the amount (0 to 100) that must stay in flexible accounts',
        validate: { schema: PARAMS.flexibleShare },
      }),
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    validate: crossRules(),
    resolve: async (_root, args, ctx, info) => {
      const { catalog, now } = await viewAt(ctx, args.asOf, info);
      const { signal, deadline } = currentLimits();
      const stop =
        deadline === undefined
          ? undefined
          : () => {
              if (performance.now() < deadline) return false;
              ctx.momentary = true;
              return true;
            };
      return runPlan(
        { catalog, calc: ctx.services.calc, now, stop },
        {
          ...filtersOf(args),
          amount: new Decimal(args.amount),
          horizon: args.horizon,
          type: args.type,
          sort: args.sort,
          maxOffers: args.maxOffers,
          flexibleShare: new Decimal(args.flexibleShare),
        },
        signal,
      );
    },
  }),
);
