// One offer in a modal dialog: what it earns month by month, how its rate moved, what changed, and the
// other offers under the same licence (they share one guarantee limit). One request: OfferDetail.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useQuery } from '../api/use-query.js';
import { OfferDetailDocument, type OfferDetailQuery } from '../gql/graphql.js';
import {
  compareDecimalText,
  formatDate,
  formatDateTime,
  formatMoney,
  formatMoneyShort,
  formatRate,
} from '../format.js';
import { EVENTS, label, months, PAYOUTS } from '../labels.js';
import { inPageWords } from '../problems.js';
import { asOfInstant, type PageState } from '../state.js';
import type { ChartSpec } from './chart-spec.js';
import { Chart } from './Chart.js';
import { DgsBadge, HeadlineRate, Money, OfferMeta, Rate } from './values.js';

type Detail = NonNullable<OfferDetailQuery['product']>;

interface Props {
  state: PageState;
  /** The amount to calculate the offer for (a plan's part: the part's); null until it is known. */
  amount: string | null;
  onClose(): void;
  onOpen(offerId: string): void;
}

const yesNo = (v: boolean) => (v ? 'Yes' : 'No');

/** Rate plans, oldest first, as a step line that ends today, or at the instant the market is shown as of. */
function historySpec(history: NonNullable<Detail['history']>, end: string | undefined): ChartSpec {
  const plans = [...history].reverse();
  const x = plans.map((p) => Math.floor(Date.parse(p.validFrom) / 1000));
  const values: (string | null)[] = plans.map((p) => p.headlineRate);
  const last = plans[plans.length - 1];
  if (last) {
    x.push(Math.floor(Date.parse(last.validTo ?? end ?? new Date().toISOString()) / 1000));
    values.push(last.headlineRate);
  }
  return {
    x,
    xKind: 'time',
    stepped: true,
    points: true,
    series: [{ label: 'Headline rate', values, color: '#1d4ed8' }],
  };
}

function Figures({ offer }: { offer: Detail['offer'] }) {
  const c = offer.calc;
  const rows: [string, ComponentChildren][] = [
    ['Headline rate', <HeadlineRate offer={offer} />],
    ['Rate for this amount at the start', <Rate value={c.nominalRate} />],
    ['Comparable yield', <Rate value={c.comparableYield} />],
    ['Net effective rate', <Rate value={c.effectiveRate} />],
    ['Return per year', <Money value={c.returnPerYear} />],
    [`Interest over ${months(c.months)}`, <Money value={c.grossInterest} />],
    ['Withholding tax', <Money value={c.withholdingTax} />],
    ['Fees', <Money value={c.fees} />],
    ['Net interest', <Money value={c.netInterest} />],
    ['End balance', <Money value={c.endBalance} />],
  ];
  return (
    <dl class="figures">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd class="num">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The columns of the month-by-month table; on a phone only those marked narrow (the rest go in a line). */
const STEP_COLUMNS = [
  { text: 'Month', narrow: true },
  { text: 'Opening balance', narrow: false },
  { text: 'Rate', narrow: true },
  { text: 'Interest', narrow: true },
  { text: 'Credited', narrow: false },
  { text: 'Withholding', narrow: false },
  { text: 'Closing balance', narrow: true },
] as const;

// On a phone the seven columns do not fit beside each other, and a table scrolling sideways inside a
// scrolling dialog is easy to miss: there the table keeps month, rate, interest and closing balance, and
// the interest cell says under it what was credited and withheld when that is not simply the interest.
function Steps({ steps }: { steps: Detail['offer']['calc']['steps'] }) {
  return (
    <div class="scroll steps-scroll" role="region" aria-labelledby="steps-title" tabIndex={0}>
      <table class="steps">
        <caption id="steps-title">Month by month</caption>
        <thead>
          <tr>
            {STEP_COLUMNS.map((c) => (
              <th scope="col" class={c.narrow ? 'num' : 'num wide-only'} key={c.text}>
                {c.text}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {steps.map((s) => {
            // Between creditings nothing is credited, and the closing balance says so already.
            const credited = s.credited !== s.interest && compareDecimalText(s.credited, '0') !== 0;
            const withheld = compareDecimalText(s.withholding, '0') !== 0;
            return (
              <tr key={s.month}>
                <th scope="row" class="num">
                  {s.month}
                </th>
                <td class="num wide-only">
                  <Money value={s.openingBalance} />
                </td>
                <td class="num">
                  <Rate value={s.rate} />
                </td>
                <td class="num">
                  <Money value={s.interest} />
                  {credited || withheld ? (
                    <span class="narrow-only sub">
                      {credited ? <>credited {formatMoney(s.credited)}</> : null}
                      {credited && withheld ? ', ' : null}
                      {withheld ? <>withheld {formatMoney(s.withholding)}</> : null}
                    </span>
                  ) : null}
                </td>
                <td class="num wide-only">
                  <Money value={s.credited} />
                </td>
                <td class="num wide-only">
                  <Money value={s.withholding} />
                </td>
                <td class="num">
                  <Money value={s.closingBalance} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function History({ history, end }: { history: Detail['history']; end: string | undefined }) {
  if (!history) return <p class="hint">The rate history is not available right now.</p>;
  return (
    <figure class="figure">
      <figcaption id="history-title">Headline rate over time</figcaption>
      <Chart spec={historySpec(history, end)} label="rate history" />
      <details>
        <summary>Rate history as a table</summary>
        <table class="plain">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Until</th>
              <th scope="col" class="num">
                Headline rate
              </th>
              <th scope="col">Promotion</th>
            </tr>
          </thead>
          <tbody>
            {history.map((p) => (
              <tr key={p.id}>
                <td>{formatDate(p.validFrom)}</td>
                <td>{p.validTo ? formatDate(p.validTo) : 'now'}</td>
                <td class="num">
                  <Rate value={p.headlineRate} />
                </td>
                <td>
                  {p.promotion
                    ? `${p.promotion.kind === 'BONUS' ? '+' : ''}${formatRate(p.promotion.rate)} for ` +
                      `${months(p.promotion.months)}`
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function Body({ detail, end, onOpen }: { detail: Detail; end: string | undefined; onOpen(id: string): void }) {
  const o = detail.offer;
  return (
    <>
      <div class="detail-grid">
        <section aria-labelledby="figures-title">
          <h3 id="figures-title">
            For <Money value={o.calc.amount} />
          </h3>
          <Figures offer={o} />
          <h3>Deposit guarantee</h3>
          <DgsBadge dgs={o.dgs} />
          <p class="sub">
            <Money value={o.dgs.covered} /> covered, <Money value={o.dgs.uncovered} /> not covered.
          </p>
        </section>
        <section aria-labelledby="conditions-title">
          <h3 id="conditions-title">Conditions</h3>
          <dl class="conditions">
            <dt>Amount</dt>
            <dd>
              from {formatMoneyShort(o.minAmount)}
              {o.maxAmount ? ` up to ${formatMoneyShort(o.maxAmount)}` : ''}
            </dd>
            <dt>Interest paid</dt>
            <dd>
              {label(PAYOUTS, o.payout)}, {o.interestCompounds ? 'stays on the account' : 'paid out to another account'}
            </dd>
            <dt>Rate</dt>
            <dd>
              {o.rateType === 'FIXED' ? 'Fixed' : 'Variable'}
              {o.tiers.length > 1
                ? ', ' +
                  (o.tierMode === 'MARGINAL'
                    ? 'each balance band earns its own rate'
                    : 'the band of the whole balance applies')
                : ''}
            </dd>
            {o.tiers.length > 1 ? (
              <>
                <dt>Bands</dt>
                <dd>
                  <ul class="bare">
                    {o.tiers.map((t) => (
                      <li key={t.from}>
                        {formatMoneyShort(t.from)}
                        {t.to ? `–${formatMoneyShort(t.to)}` : ' and more'}: {formatRate(t.rate)}
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            ) : null}
            <dt>Annual fee</dt>
            <dd>{formatMoney(o.annualFee)}</dd>
            <dt>Open to new customers</dt>
            <dd>{yesNo(o.openToNewCustomers)}</dd>
            <dt>Current account needed</dt>
            <dd>{yesNo(o.currentAccountRequired)}</dd>
            {o.type === 'DEPOSIT' ? (
              <>
                <dt>Can be ended early</dt>
                <dd>{yesNo(o.earlyWithdrawal)}</dd>
              </>
            ) : null}
            <dt>Last checked</dt>
            <dd>
              {formatDateTime(o.freshness.checkedAt)}
              {o.freshness.official ? ', official source' : ''}
              {o.freshness.confirmed ? ', confirmed' : ''}
            </dd>
          </dl>
          {o.sourceUrl ? (
            <p>
              <a href={o.sourceUrl} rel="noopener noreferrer" target="_blank">
                The provider's page
              </a>
            </p>
          ) : null}
        </section>
      </div>

      <section aria-labelledby="history-title">
        <History history={detail.history} end={end} />
      </section>

      <Steps steps={o.calc.steps} />

      <section aria-labelledby="events-title">
        <h3 id="events-title">Changes</h3>
        {detail.events === null || detail.events === undefined ? (
          <p class="hint">The changes are not available right now.</p>
        ) : detail.events.length === 0 ? (
          <p class="hint">No changes recorded.</p>
        ) : (
          <ul class="events">
            {detail.events.map((e) => {
              const kind = EVENTS[e.kind] ?? e.kind;
              return (
                <li key={e.id}>
                  <time dateTime={e.at}>{formatDate(e.at)}</time> <span class="kind">{kind}</span> {e.summary}
                </li>
              );
            })}
          </ul>
        )}
      </section>

      <section aria-labelledby="licence-title">
        <h3 id="licence-title">Under the same licence</h3>
        {detail.sameLicence.length === 0 ? (
          <p class="hint">No other offers from {o.institution.name}.</p>
        ) : (
          <>
            <p class="hint">{o.institution.name}: one guarantee limit for all of these together.</p>
            <ul class="licence">
              {detail.sameLicence.map((s) => (
                <li key={s.id}>
                  <button type="button" class="link" onClick={() => onOpen(s.id)}>
                    {s.brand.name} {s.name}
                  </button>{' '}
                  <OfferMeta offer={s} /> <Rate value={s.calc.comparableYield} />
                </li>
              ))}
            </ul>
          </>
        )}
      </section>

      {detail.sources.length ? (
        <section aria-labelledby="sources-title">
          <h3 id="sources-title">Sources</h3>
          <ul class="bare">
            {detail.sources.map((s) => (
              <li key={s.id}>
                {s.name} ({s.kind.toLowerCase()}){s.status === 'FAILING' ? ', failing at the last check' : ''}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

export function OfferDialog({ state, amount, onClose, onOpen }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const variables =
    amount === null
      ? null
      : {
          id: state.offer,
          amount,
          horizon: (/^\d+$/.test(state.horizon) ? Number(state.horizon) : state.horizon) as number,
          asOf: asOfInstant(state.asOf),
        };
  const query = useQuery(OfferDetailDocument, variables, variables && JSON.stringify(variables));
  const { data, error } = query;
  const loading = query.loading || variables === null;
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const d = dialog.current!;
    if (!d.open) d.showModal();
    const closed = () => close.current();
    d.addEventListener('close', closed);
    return () => {
      d.removeEventListener('close', closed);
      if (d.open) d.close();
    };
  }, []);

  const detail = data?.product ?? null;
  const title = detail ? `${detail.offer.brand.name} ${detail.offer.name}` : 'Offer';
  return (
    <dialog ref={dialog} class="detail" aria-labelledby="detail-title" aria-busy={loading ? 'true' : 'false'}>
      <header class="detail-head">
        <div>
          <h2 id="detail-title">{title}</h2>
          {detail ? <OfferMeta offer={detail.offer} /> : null}
        </div>
        <button type="button" class="close" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      {error ? (
        <div class="problems" role="alert">
          {error.problems.map((p, i) => (
            <p key={i}>{inPageWords(p, state)}</p>
          ))}
        </div>
      ) : detail ? (
        <Body detail={detail} end={variables?.asOf} onOpen={onOpen} />
      ) : (
        <p role="status">Loading…</p>
      )}
    </dialog>
  );
}
