// What the saver asks: the amount, the horizon, the kind of account, the order, a search, and the day the
// market is shown as of.
import { useEffect, useRef, useState } from 'preact/hooks';
import { amountForInput, amountFromInput, formatCount } from '../format.js';
import { HORIZONS, label, months, ORDERS, SORTS, TYPES } from '../labels.js';
import { today, typeOf, type PageState } from '../state.js';

interface Props {
  state: PageState;
  /** The API's messages per parameter (amount, horizon…). */
  problems: Map<string, string>;
  /** Offers per type, from the type facet (null while unknown). */
  typeCounts: Map<string, number> | null;
  onChange(change: Partial<PageState>): void;
}

/** A text field committed on Enter, on leaving it, or after a pause in typing. */
function useCommittedText(
  value: string,
  show: (v: string) => string,
  read: (t: string) => string,
  commit: (v: string) => void,
) {
  const [text, setText] = useState(() => show(value));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Back/forward or a reset changes the value from outside: show it, unless the field already says it.
  useEffect(() => {
    if (read(text) !== value) setText(show(value));
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const flush = (t: string) => {
    clearTimeout(timer.current);
    const next = read(t);
    if (next !== value) commit(next);
  };
  return {
    value: text,
    onInput: (e: Event) => {
      const t = (e.currentTarget as HTMLInputElement).value;
      setText(t);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => flush(t), 700);
    },
    onChange: (e: Event) => flush((e.currentTarget as HTMLInputElement).value),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        flush((e.currentTarget as HTMLInputElement).value);
      }
    },
  };
}

const same = (v: string) => v;

export function Controls({ state, problems, typeCounts, onChange }: Props) {
  const amount = useCommittedText(state.amount, amountForInput, amountFromInput, (v) => onChange({ amount: v }));
  const search = useCommittedText(
    state.zoek,
    same,
    (t) => t.trim(),
    (v) => onChange({ zoek: v }),
  );
  const amountError = problems.get('amount');
  const horizonError = problems.get('horizon');
  const asOfError = problems.get('asOf');
  const horizons = HORIZONS.includes(state.horizon as (typeof HORIZONS)[number])
    ? [...HORIZONS]
    : [...HORIZONS, state.horizon];
  const total = typeCounts ? [...typeCounts.values()].reduce((a, b) => a + b, 0) : null;
  const planView = state.view === 'plan';
  const currentType = typeOf(state);
  const countOf = (type: string) =>
    type === 'all' ? total : (typeCounts?.get(type.toUpperCase()) ?? (typeCounts ? 0 : null));

  return (
    <form class="controls" onSubmit={(e) => e.preventDefault()} aria-label="Your savings">
      <div class="field amount">
        <label for="amount">Amount</label>
        <div class="euro">
          <span aria-hidden="true">€</span>
          <input
            id="amount"
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            spellcheck={false}
            aria-invalid={amountError ? 'true' : undefined}
            aria-describedby="amount-help"
            {...amount}
          />
        </div>
        <p id="amount-help" class={amountError ? 'error' : 'hint'} role={amountError ? 'alert' : undefined}>
          {amountError ?? 'in euros'}
        </p>
      </div>

      <div class="field">
        <label for="horizon">Horizon</label>
        <select
          id="horizon"
          value={state.horizon}
          aria-describedby="horizon-help"
          aria-invalid={horizonError ? 'true' : undefined}
          onChange={(e) => onChange({ horizon: e.currentTarget.value })}
        >
          {horizons.map((h) => (
            <option key={h} value={h}>
              {/^\d+$/.test(h) ? months(Number(h)) : h}
            </option>
          ))}
        </select>
        <p id="horizon-help" class={horizonError ? 'error' : 'hint'}>
          {horizonError ?? 'flexible and notice accounts'}
        </p>
      </div>

      <fieldset class="field types">
        <legend>{planView ? 'Type of each part' : 'Type'}</legend>
        <div class="segmented">
          {(Object.keys(TYPES) as (keyof typeof TYPES)[]).map((type) => {
            const count = countOf(type);
            return (
              <label key={type} class={currentType === type ? 'on' : undefined}>
                <input
                  type="radio"
                  name="type"
                  value={type}
                  checked={currentType === type}
                  onChange={() =>
                    onChange({ type, terms: type === 'flexible' || type === 'notice' ? [] : state.terms })
                  }
                />
                {label(TYPES, type)}
                {count !== null ? <span class="count"> ({formatCount(count)})</span> : null}
              </label>
            );
          })}
        </div>
      </fieldset>

      {planView ? null : (
        <>
          <div class="field sort">
            <label for="sort">Sort by</label>
            <select id="sort" value={state.sort} onChange={(e) => onChange({ sort: e.currentTarget.value })}>
              {Object.entries(SORTS).map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </div>

          <div class="field order">
            <label for="order">Order</label>
            <select id="order" value={state.order} onChange={(e) => onChange({ order: e.currentTarget.value })}>
              {Object.entries(ORDERS).map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </div>
        </>
      )}

      <div class="field search">
        <label for="zoek">Search</label>
        <input id="zoek" type="search" autoComplete="off" placeholder="Bank or product" {...search} />
      </div>

      <div class="field as-of-date">
        <label for="asOf">Market as of</label>
        {/* A date field commits a whole day or none; an instant from a hand-made link shows as none. */}
        <input
          id="asOf"
          type="date"
          value={/^\d{4}-\d{2}-\d{2}$/.test(state.asOf) ? state.asOf : ''}
          max={today()}
          aria-describedby="asOf-help"
          aria-invalid={asOfError ? 'true' : undefined}
          onChange={(e) => onChange({ asOf: e.currentTarget.value })}
        />
        <p id="asOf-help" class={asOfError ? 'error' : 'hint'} role={asOfError ? 'alert' : undefined}>
          {asOfError ?? 'empty: now'}
        </p>
      </div>
    </form>
  );
}
