// The market: the best rate per deposit term (with the list's filters), the best per type, and how the
// best rates moved over the last days (marketHistory). Fetched with the list, in the same request. A day of
// the history (a click on the chart, a link in its table) opens the list as it stood that day.
import type { ComparisonQuery } from '../gql/graphql.js';
import { compareDecimalText, formatAsOf, formatDay, formatRate } from '../format.js';
import { label, MARKET_DAYS, months, TYPES } from '../labels.js';
import { serializeState, withChange, type PageState } from '../state.js';
import type { ChartSpec } from './chart-spec.js';
import { Chart } from './Chart.js';
import { Rate } from './values.js';

interface Props {
  state: PageState;
  list: ComparisonQuery['products'] | null;
  history: NonNullable<ComparisonQuery['marketHistory']>['items'] | null;
  onChange(change: Partial<PageState>): void;
  onOpen(offerId: string): void;
}

const COLORS = { flexible: '#1d4ed8', notice: '#b45309', deposit12: '#047857', deposit60: '#7e22ce' };
const dayToSeconds = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);

/** A day with no rate at all is before the market's first data: there is no list to show for it. */
const hasData = (d: {
  flexible?: string | null;
  notice?: string | null;
  deposit12?: string | null;
  deposit60?: string | null;
}) => Boolean(d.flexible ?? d.notice ?? d.deposit12 ?? d.deposit60);

export function Market({ state, list, history, onChange, onOpen }: Props) {
  if (!list) return null;
  const listAsOf = (day: string): Partial<PageState> => ({ asOf: day, view: 'list' });
  const when = state.asOf ? `On ${formatAsOf(state.asOf)}` : 'Today';
  const best = list.termCurve.reduce(
    (top, p, i) => (top < 0 || compareDecimalText(p.rate, list.termCurve[top]!.rate) > 0 ? i : top),
    -1,
  );
  const curve: ChartSpec = {
    x: list.termCurve.map((p) => p.term),
    xKind: 'months',
    points: true,
    restIndex: Math.max(best, 0),
    series: [{ label: 'Best comparable yield', values: list.termCurve.map((p) => p.rate), color: COLORS.deposit12 }],
  };
  const days = history ?? [];
  const market: ChartSpec = {
    x: days.map((d) => dayToSeconds(d.date)),
    xKind: 'time',
    series: [
      { label: 'Flexible', values: days.map((d) => d.flexible ?? null), color: COLORS.flexible },
      { label: 'Notice', values: days.map((d) => d.notice ?? null), color: COLORS.notice },
      { label: '1-year deposit', values: days.map((d) => d.deposit12 ?? null), color: COLORS.deposit12 },
      { label: '5-year deposit', values: days.map((d) => d.deposit60 ?? null), color: COLORS.deposit60 },
    ],
  };
  const maxima = (['flexible', 'notice', 'deposit'] as const).map((type) => ({ type, best: list.typeMax[type] }));
  return (
    <div class="market">
      <section aria-labelledby="maxima-title">
        <h2 id="maxima-title">Best comparable yield per type</h2>
        <p class="hint">With your amount and filters, whatever the type.</p>
        <ul class="cards">
          {maxima.map(({ type, best }) => (
            <li key={type} class="card">
              <span class="card-label">{label(TYPES, type)}</span>
              {best ? (
                <>
                  <span class="card-value">
                    <Rate value={best.rate} />
                  </span>
                  <button type="button" class="link" onClick={() => onOpen(best.offerId)}>
                    See the offer<span class="visually-hidden"> ({label(TYPES, type).toLowerCase()})</span>
                  </button>
                </>
              ) : (
                <span class="card-value">—</span>
              )}
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="curve-title">
        <h2 id="curve-title">Deposits: best rate per term</h2>
        {list.termCurve.length ? (
          <figure class="figure">
            <Chart spec={curve} label="term curve" />
            <figcaption class="hint">
              The best comparable yield for each deposit term, with your amount and filters. The legend shows the point
              under the pointer, else the best term.
            </figcaption>
            <details>
              <summary>Term curve as a table</summary>
              <table class="plain">
                <thead>
                  <tr>
                    <th scope="col">Term</th>
                    <th scope="col" class="num">
                      Best comparable yield
                    </th>
                    <th scope="col">Offer</th>
                  </tr>
                </thead>
                <tbody>
                  {list.termCurve.map((p) => (
                    <tr key={p.term}>
                      <td>{months(p.term)}</td>
                      <td class="num">
                        <Rate value={p.rate} />
                      </td>
                      <td>
                        <button type="button" class="link" onClick={() => onOpen(p.offerId)}>
                          See the offer<span class="visually-hidden"> for {months(p.term)}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          </figure>
        ) : (
          <p class="hint">No deposit matches these filters.</p>
        )}
      </section>

      <section aria-labelledby="history-market-title">
        <div class="section-head">
          <h2 id="history-market-title">Best headline rates over time</h2>
          <div class="field inline">
            <label for="days">Period</label>
            <select id="days" value={state.days} onChange={(e) => onChange({ days: e.currentTarget.value })}>
              {(MARKET_DAYS.includes(state.days as (typeof MARKET_DAYS)[number])
                ? [...MARKET_DAYS]
                : [...MARKET_DAYS, state.days]
              ).map((d) => (
                <option key={d} value={d}>
                  last {d} days
                </option>
              ))}
            </select>
          </div>
        </div>
        <p class="hint">
          Across the whole market (offers with a verified guarantee), per day. {when}: flexible{' '}
          {rateOr(list.market.best.flexible)}, notice {rateOr(list.market.best.notice)}, 1-year deposit{' '}
          {rateOr(list.market.best.deposit12)}, 5-year deposit {rateOr(list.market.best.deposit60)}.
        </p>
        {days.length ? (
          <figure class="figure">
            <Chart
              spec={market}
              label="market history"
              onPick={(i) => {
                const day = days[i];
                if (day && hasData(day)) onChange(listAsOf(day.date));
              }}
            />
            <figcaption class="hint">
              The legend shows the day under the pointer, else the latest day. Click a day (or a day in the table) to
              see the offers as they stood then.
            </figcaption>
            <details>
              <summary>Market history as a table</summary>
              <div class="scroll" role="region" aria-label="Market history table" tabIndex={0}>
                <table class="plain">
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      {market.series.map((s) => (
                        <th scope="col" class="num" key={s.label}>
                          {s.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {days.map((d) => (
                      <tr key={d.date}>
                        <td>
                          {hasData(d) ? (
                            <a
                              href={serializeState(withChange(state, listAsOf(d.date))) || '/'}
                              onClick={(e) => {
                                e.preventDefault();
                                onChange(listAsOf(d.date));
                              }}
                            >
                              {formatDay(d.date)}
                              <span class="visually-hidden">: the offers as they stood then</span>
                            </a>
                          ) : (
                            formatDay(d.date)
                          )}
                        </td>
                        {[d.flexible, d.notice, d.deposit12, d.deposit60].map((v, i) => (
                          <td class="num" key={i}>
                            {v ? <Rate value={v} /> : '—'}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </figure>
        ) : (
          <p class="hint">Loading the market history…</p>
        )}
      </section>
    </div>
  );
}

const rateOr = (value: string | null | undefined) => (value ? formatRate(value) : '—');
