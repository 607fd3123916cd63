// The list: one row per offer, what it earns on the amount and how much of it the guarantee covers.
// A table on wide screens; on a phone each row is a card (CSS), with the table's roles kept explicitly.
import type { ComparisonQuery, OfferRowFragment } from '../gql/graphql.js';
import { formatCount, formatMoney } from '../format.js';
import { label, PAGE_SIZES, SORTS } from '../labels.js';
import { exportHref, serializeState, type PageState } from '../state.js';
import { DgsBadge, HeadlineRate, Money, OfferMeta, Rate, WithholdingNote } from './values.js';

type List = ComparisonQuery['products'];

interface Props {
  state: PageState;
  list: List | null;
  loading: boolean;
  /** The list shown answers an earlier question: the current one was refused. */
  stale: boolean;
  onChange(change: Partial<PageState>): void;
  onOpen(offerId: string): void;
}

const COLUMNS = [
  { key: 'offer', text: 'Offer', sort: 'bank' },
  { key: 'headline', text: 'Headline rate', sort: 'headline', num: true },
  { key: 'yield', text: 'Comparable yield', sort: null, num: true },
  { key: 'effective', text: 'Net effective rate', sort: 'effective', num: true },
  { key: 'return', text: 'Return per year', sort: 'return', num: true },
  { key: 'withholding', text: 'Withholding tax', sort: null },
  { key: 'dgs', text: 'Deposit guarantee', sort: null },
] as const;

function ariaSort(state: PageState, sort: string | null): 'ascending' | 'descending' | undefined {
  if (sort !== state.sort) return undefined;
  const descending = state.order
    ? state.order === 'desc'
    : ['return', 'effective', 'headline', 'verified'].includes(sort);
  return descending ? 'descending' : 'ascending';
}

function Row({ offer, onOpen }: { offer: OfferRowFragment; onOpen(id: string): void }) {
  return (
    <tr role="row" class={offer.eligible ? undefined : 'ineligible'}>
      <th role="rowheader" scope="row" class="offer">
        <span class="bank">{offer.brand.name}</span> <span class="product">{offer.name}</span>
        <OfferMeta offer={offer} />
        {offer.eligible ? null : (
          <span class="badge warn">
            {offer.ineligibleReason === 'BELOW_MINIMUM'
              ? `Minimum ${formatMoney(offer.minAmount)}`
              : `Maximum ${offer.maxAmount ? formatMoney(offer.maxAmount) : ''}`}
          </span>
        )}
      </th>
      <td role="cell" class="num" data-label="Headline rate">
        <HeadlineRate offer={offer} />
      </td>
      <td role="cell" class="num" data-label="Comparable yield">
        <Rate value={offer.calc.comparableYield} />
      </td>
      <td role="cell" class="num" data-label="Net effective rate">
        <Rate value={offer.calc.effectiveRate} />
      </td>
      <td role="cell" class="num strong" data-label="Return per year">
        <Money value={offer.calc.returnPerYear} />
      </td>
      <td role="cell" class="num" data-label="Withholding tax">
        <WithholdingNote offer={offer} />
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
          aria-label={`Details of ${offer.brand.name} ${offer.name}`}
        >
          Details
        </button>
      </td>
    </tr>
  );
}

export function Results({ state, list, loading, stale, onChange, onOpen }: Props) {
  const page = Number(state.page) || 1;
  const size = Number(state.pageSize) || 20;
  const pages = list ? Math.max(1, Math.ceil(list.total / size)) : 1;
  // Offers hidden because the guarantee would not cover the whole amount: the plan is the answer to that.
  const planHref = serializeState({ ...state, view: 'plan' });
  const toPlan = (e: Event) => {
    e.preventDefault();
    onChange({ view: 'plan' });
  };
  return (
    <section class="results" aria-labelledby="results-title" aria-busy={loading ? 'true' : 'false'}>
      <div class="results-head">
        <h2 id="results-title">Offers</h2>
        <p class="summary" role="status">
          {list ? (
            <>
              {stale ? <>Still showing the last offers that could be found: </> : null}
              <strong>{formatCount(list.total)}</strong> {list.total === 1 ? 'offer' : 'offers'} for{' '}
              <Money value={list.items[0]?.calc.amount ?? state.amount} />, by {label(SORTS, state.sort).toLowerCase()}
              {list.hiddenByDgs > 0 ? (
                <>
                  {' '}
                  · {formatCount(list.hiddenByDgs)} hidden: not fully covered by a guarantee (
                  <a href={planHref} onClick={toPlan}>
                    spread the amount in a savings plan
                  </a>
                  )
                </>
              ) : null}
              {list.hiddenIneligible > 0 ? (
                <> · {formatCount(list.hiddenIneligible)} hidden: amount outside their limits</>
              ) : null}
            </>
          ) : loading ? (
            'Loading offers…'
          ) : (
            'No offers shown: correct what is marked above.'
          )}
        </p>
        <a class="button" href={exportHref(state)} download>
          Download CSV
        </a>
      </div>
      {list ? (
        list.items.length ? (
          <div class="table-wrap">
            <table role="table" class="offers">
              <caption class="visually-hidden">
                Savings offers for the amount, page {page} of {pages}
              </caption>
              <thead role="rowgroup">
                <tr role="row">
                  {COLUMNS.map((c) => (
                    <th
                      role="columnheader"
                      scope="col"
                      key={c.key}
                      class={'num' in c ? 'num' : undefined}
                      aria-sort={ariaSort(state, c.sort)}
                    >
                      {c.text}
                    </th>
                  ))}
                  <th role="columnheader" scope="col">
                    <span class="visually-hidden">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody role="rowgroup">
                {list.items.map((offer) => (
                  <Row key={offer.id} offer={offer} onOpen={onOpen} />
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="empty">
            {list.hiddenByDgs > 0 ? (
              <>
                No offer holds all of <Money value={list.items[0]?.calc.amount ?? state.amount} /> under its deposit
                guarantee. The{' '}
                <a href={planHref} onClick={toPlan}>
                  savings plan
                </a>{' '}
                spreads it over several offers, each part fully covered.
              </>
            ) : (
              'No offer matches these filters.'
            )}
          </p>
        )
      ) : null}
      {list && list.total > 0 ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={page <= 1} onClick={() => onChange({ page: String(page - 1) })}>
            Previous
          </button>
          <span aria-current="page">
            Page {formatCount(page)} of {formatCount(pages)}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => onChange({ page: String(page + 1) })}>
            Next
          </button>
          <label for="pageSize">Per page</label>
          <select
            id="pageSize"
            value={state.pageSize}
            onChange={(e) => onChange({ pageSize: e.currentTarget.value, page: '1' })}
          >
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </nav>
      ) : null}
    </section>
  );
}
