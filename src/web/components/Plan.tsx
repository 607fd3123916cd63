// The savings plan (GraphQL `plan`, GET /api/plan): an amount spread over offers so that every part is
// fully covered by a deposit guarantee, with the parts, what the plan earns against the whole amount in
// the best single offer (asked in the same request), and whether the search proved it the best.
// Its own chunk, loaded when the view is first shown: the list needs none of it, nor decimal.js.
import { Decimal } from 'decimal.js';
import type { ComponentChildren } from 'preact';
import type { OfferRowFragment, SavingsPlanQuery } from '../gql/graphql.js';
import { formatMoney, formatMoneyShort } from '../format.js';
import type { PageState } from '../state.js';
import { DgsBadge, HeadlineRate, Money, OfferMeta, Rate } from './values.js';

type Plan = SavingsPlanQuery['plan'];

interface Props {
  state: PageState;
  data: SavingsPlanQuery | null;
  loading: boolean;
  /** The plan shown answers an earlier question (the current one was refused). */
  stale: boolean;
  onChange(change: Partial<PageState>): void;
  onOpen(offerId: string): void;
}

const MAX_OFFERS = ['1', '2', '3', '4', '5', '6', '8', '10', '15', '20'];
const FLEXIBLE_SHARES = ['0', '10', '20', '25', '30', '40', '50', '75', '100'];
const OBJECTIVES = { return: 'Return per year', effective: 'Return after tax and fees' } as const;

/** The URL's value stays selectable when it is not one of the usual ones. */
const withCurrent = (values: string[], current: string) => (values.includes(current) ? values : [...values, current]);

// The API's sentences write amounts as "300000.00 €"; the page shows them in the saver's locale.
const localAmounts = (text: string) => text.replace(/(\d+\.\d{2}) €/g, (_, amount: string) => formatMoney(amount));

function Settings({ state, onChange }: Pick<Props, 'state' | 'onChange'>) {
  const objective = state.sort === 'effective' ? 'effective' : 'return';
  return (
    <form class="plan-settings" aria-label="The plan's rules" onSubmit={(e) => e.preventDefault()}>
      <div class="field">
        <label for="maxOffers">Offers at most</label>
        <select id="maxOffers" value={state.maxOffers} onChange={(e) => onChange({ maxOffers: e.currentTarget.value })}>
          {withCurrent(MAX_OFFERS, state.maxOffers).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="flexibleShare">Kept at hand</label>
        <select
          id="flexibleShare"
          value={state.flexibleShare}
          aria-describedby="flexibleShare-help"
          onChange={(e) => onChange({ flexibleShare: e.currentTarget.value })}
        >
          {withCurrent(FLEXIBLE_SHARES, state.flexibleShare).map((n) => (
            <option key={n} value={n}>
              {n} %
            </option>
          ))}
        </select>
        <p id="flexibleShare-help" class="hint">
          in flexible accounts
        </p>
      </div>
      <div class="field objective">
        <label for="objective">Best by</label>
        <select id="objective" value={objective} onChange={(e) => onChange({ sort: e.currentTarget.value })}>
          {Object.entries(OBJECTIVES).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}

const offerName = (o: OfferRowFragment) => `${o.brand.name} ${o.name}`;

function Parts({ plan, onOpen }: { plan: Plan; onOpen(id: string): void }) {
  const t = plan.totals;
  return (
    <table class="parts" role="table">
      <caption class="visually-hidden">The parts of the plan, largest first</caption>
      <thead role="rowgroup">
        <tr role="row">
          <th role="columnheader" scope="col">
            Offer
          </th>
          <th role="columnheader" scope="col" class="num">
            Amount
          </th>
          <th role="columnheader" scope="col" class="num">
            Headline rate
          </th>
          <th role="columnheader" scope="col" class="num">
            Comparable yield
          </th>
          <th role="columnheader" scope="col" class="num">
            Return per year
          </th>
          <th role="columnheader" scope="col">
            Deposit guarantee
          </th>
          <th role="columnheader" scope="col">
            <span class="visually-hidden">Details</span>
          </th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        {plan.allocations.map(({ amount, offer }) => (
          <tr role="row" key={offer.id} data-part={offer.id}>
            <th role="rowheader" scope="row" class="offer">
              <span class="bank">{offer.brand.name}</span> <span class="product">{offer.name}</span>
              <OfferMeta offer={offer} />
              <span class="meta">Bank: {offer.institution.name}</span>
            </th>
            <td role="cell" class="num strong" data-label="Amount">
              <Money value={amount} />
            </td>
            <td role="cell" class="num" data-label="Headline rate">
              <HeadlineRate offer={offer} />
            </td>
            <td role="cell" class="num" data-label="Comparable yield">
              <Rate value={offer.calc.comparableYield} />
            </td>
            <td role="cell" class="num" data-label="Return per year">
              <Money value={offer.calc.returnPerYear} />
            </td>
            <td role="cell" data-label="Deposit guarantee">
              <DgsBadge dgs={offer.dgs} />
            </td>
            <td role="cell" class="action">
              <button
                type="button"
                class="link"
                data-offer={offer.id}
                onClick={() => onOpen(offer.id)}
                aria-label={`Details of ${offerName(offer)}`}
              >
                Details
              </button>
            </td>
          </tr>
        ))}
      </tbody>
      <tfoot role="rowgroup">
        <tr role="row" class="plan-total">
          <th role="rowheader" scope="row">
            The plan
          </th>
          <td role="cell" class="num strong" data-label="Placed">
            <Money value={t.placed} />
          </td>
          <td role="cell" class="num empty-cell" aria-hidden="true" />
          <td role="cell" class="num" data-label="Comparable yield">
            <Rate value={t.comparableYield} />
          </td>
          <td role="cell" class="num strong" data-label="Return per year">
            <Money value={t.returnPerYear} />
          </td>
          <td role="cell" data-label="Deposit guarantee">
            <span class="badge ok">Every euro covered</span>
          </td>
          <td role="cell" class="empty-cell" aria-hidden="true" />
        </tr>
      </tfoot>
    </table>
  );
}

/** The plan against the whole amount in the best single offer for the same question. */
function Comparison({ plan, single }: { plan: Plan; single: OfferRowFragment | null }) {
  const t = plan.totals;
  if (!single)
    return (
      <p class="compare-line">
        No single offer takes the whole <Money value={t.amount} /> with these filters: spreading it is the only way to
        place it.
      </p>
    );
  const difference = new Decimal(t.returnPerYear).minus(single.calc.returnPerYear);
  const gap = formatMoney(difference.abs().toFixed(2));
  const uncovered = new Decimal(single.dgs.uncovered);
  const name = offerName(single);
  let verdict: ComponentChildren;
  if (difference.isPositive() && !difference.isZero())
    verdict = (
      <>
        The plan earns <strong>{gap} more a year</strong> than all of it in {name}
        {uncovered.isZero() ? '.' : <>, which would leave {formatMoney(single.dgs.uncovered)} without a guarantee.</>}
      </>
    );
  else if (difference.isZero())
    verdict = (
      <>
        The plan earns as much as all of it in {name}
        {uncovered.isZero() ? '.' : <>, which would leave {formatMoney(single.dgs.uncovered)} without a guarantee.</>}
      </>
    );
  else
    verdict = uncovered.isZero() ? (
      <>
        All of it in {name} would earn <strong>{gap} more a year</strong>, also fully covered: the plan's rules (the
        share kept at hand, the number of offers) cost that much.
      </>
    ) : (
      <>
        All of it in {name} would earn <strong>{gap} more a year</strong>, but{' '}
        <strong>{formatMoney(single.dgs.uncovered)} of it would have no guarantee</strong>; the plan covers every euro
        it places.
      </>
    );
  const rows: [string, ComponentChildren, ComponentChildren][] = [
    ['Placed', <Money value={t.placed} />, <Money value={single.calc.amount} />],
    ['Covered by a guarantee', <Money value={t.placed} />, <Money value={single.dgs.covered} />],
    ['Not covered', <Money value="0.00" />, <Money value={single.dgs.uncovered} />],
    ['Return per year', <Money value={t.returnPerYear} />, <Money value={single.calc.returnPerYear} />],
    ['Comparable yield', <Rate value={t.comparableYield} />, <Rate value={single.calc.comparableYield} />],
    ['Net effective rate', <Rate value={t.effectiveRate} />, <Rate value={single.calc.effectiveRate} />],
  ];
  return (
    <section class="compare" aria-labelledby="compare-title">
      <h3 id="compare-title">Against one offer for everything</h3>
      <p class="compare-line" data-difference={difference.toFixed(2)}>
        {verdict}
      </p>
      <table class="plain compare-table">
        <caption class="hint">
          One offer: {name}, the best for the whole amount with the same filters, ranked as the plan is, covered or not.
        </caption>
        <thead>
          <tr>
            <td />
            <th scope="col" class="num">
              This plan
            </th>
            <th scope="col" class="num">
              One offer
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([what, mine, theirs]) => (
            <tr key={what}>
              <th scope="row">{what}</th>
              <td class="num">{mine}</td>
              <td class="num">{theirs}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Optimality({ plan }: { plan: Plan }) {
  if (plan.optimal)
    return (
      <p class="optimal" data-optimal="true">
        <span class="badge ok">Best possible</span> The search proved it: no other plan within these rules places more,
        or places as much and earns more.
      </p>
    );
  return (
    <p class="optimal" data-optimal="false">
      <span class="badge warn">Best found</span> The search stopped at its time limit with this plan;{' '}
      {plan.optimalityGap !== null ? (
        <>another could earn at most {formatMoney(plan.optimalityGap)} more a year.</>
      ) : (
        <>one that places more was not ruled out.</>
      )}
    </p>
  );
}

export function PlanView({ state, data, loading, stale, onChange, onOpen }: Props) {
  const plan = data?.plan ?? null;
  const t = plan?.totals;
  const parts = plan?.allocations.length ?? 0;
  return (
    <section class="plan" aria-labelledby="plan-title" aria-busy={loading ? 'true' : 'false'}>
      <h2 id="plan-title">Savings plan</h2>
      <p class="lead">
        A deposit guarantee covers up to {formatMoneyShort('100000')} per person and bank in the EU, all its brands
        together. The plan spreads your amount over offers so that every part is fully covered, and of all such spreads
        it is the one that earns the most.
      </p>
      <Settings state={state} onChange={onChange} />
      <p class="summary" role="status">
        {plan && t ? (
          <>
            {stale ? <>Still the plan for the last amount that could be used: </> : null}
            {parts ? (
              <>
                <Money value={t.amount} /> in <strong>{parts}</strong> {parts === 1 ? 'part' : 'parts'}, each fully
                covered by a deposit guarantee
              </>
            ) : (
              <>
                No part of <Money value={t.amount} /> can be placed under full cover with these filters
              </>
            )}
            {new Decimal(t.unplaced).isZero() ? (
              '.'
            ) : (
              <>
                {parts ? (
                  <>
                    ; <Money value={t.unplaced} /> not placed.
                  </>
                ) : (
                  '.'
                )}{' '}
                {plan.unplacedReason ? localAmounts(plan.unplacedReason.message) : null}
              </>
            )}
          </>
        ) : loading ? (
          'Working out the plan…'
        ) : (
          'No plan: correct what is marked above.'
        )}
      </p>
      {plan ? (
        <>
          {parts ? <Parts plan={plan} onOpen={onOpen} /> : null}
          <Optimality plan={plan} />
          <Comparison plan={plan} single={data?.single.items[0] ?? null} />
        </>
      ) : null}
    </section>
  );
}
