// Filters from the API's facets: each value with the number of offers it would show (given every other
// filter), disabled when that is zero. Values go back to the API exactly as it gave them.
import type { ComparisonQuery } from '../gql/graphql.js';
import { countryName, formatCount } from '../format.js';
import {
  CHANNELS,
  CURRENT_ACCOUNT,
  EARLY_WITHDRAWAL,
  FEES,
  FRESHNESS,
  label,
  months,
  NEW_CUSTOMERS,
  PAYOUTS,
  PROMOTIONS,
  WITHHOLDING,
} from '../labels.js';
import type { PageState } from '../state.js';

type Facets = ComparisonQuery['products']['facets'];
type Bucket = { value: string; count: number };

interface Props {
  state: PageState;
  facets: Facets | null;
  onChange(change: Partial<PageState>): void;
}

const counts = (buckets: { value: string | number; count: number }[] | undefined) =>
  new Map((buckets ?? []).map((b) => [String(b.value), b.count]));
const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);

/** One choice among values (channel, withholding); "all" counts every offer. */
function RadioFacet({
  name,
  legend,
  labels,
  value,
  buckets,
  known,
  onPick,
}: {
  name: string;
  legend: string;
  labels: Record<string, string>;
  value: string;
  buckets: Map<string, number>;
  known: boolean;
  onPick(v: string): void;
}) {
  return (
    <fieldset class="facet">
      <legend>{legend}</legend>
      {Object.keys(labels).map((v) => {
        const count = v === 'all' ? sum(buckets) : (buckets.get(v.toUpperCase()) ?? 0);
        const id = `${name}-${v}`;
        return (
          <div class="option" key={v}>
            <input
              type="radio"
              id={id}
              name={name}
              value={v}
              checked={value === v}
              disabled={known && count === 0 && value !== v}
              onChange={() => onPick(v)}
            />
            <label for={id}>
              {labels[v]} <span class="count">{known ? formatCount(count) : ''}</span>
            </label>
          </div>
        );
      })}
    </fieldset>
  );
}

/** Any number of values (countries, payouts, terms); selected values stay listed even at zero. */
function CheckFacet({
  name,
  legend,
  buckets,
  selected,
  known,
  text,
  onPick,
}: {
  name: string;
  legend: string;
  buckets: Bucket[];
  selected: string[];
  known: boolean;
  text(v: string): string;
  onPick(values: string[]): void;
}) {
  const all = new Map(buckets.map((b) => [b.value, b.count]));
  for (const v of selected) if (!all.has(v)) all.set(v, 0);
  if (all.size === 0) return null;
  const toggle = (v: string, on: boolean) => onPick(on ? [...selected, v] : selected.filter((s) => s !== v));
  return (
    <fieldset class="facet">
      <legend>{legend}</legend>
      {[...all].map(([v, count]) => {
        const id = `${name}-${v}`;
        const on = selected.includes(v);
        return (
          <div class="option" key={v}>
            <input
              type="checkbox"
              id={id}
              name={name}
              value={v}
              checked={on}
              disabled={known && count === 0 && !on}
              onChange={(e) => toggle(v, e.currentTarget.checked)}
            />
            <label for={id}>
              {text(v)} <span class="count">{known ? formatCount(count) : ''}</span>
            </label>
          </div>
        );
      })}
    </fieldset>
  );
}

function Choice({
  id,
  legend,
  labels,
  value,
  onPick,
}: {
  id: string;
  legend: string;
  labels: Record<string, string>;
  value: string;
  onPick(v: string): void;
}) {
  return (
    <div class="field">
      <label for={id}>{legend}</label>
      <select id={id} value={value} onChange={(e) => onPick(e.currentTarget.value)}>
        {Object.entries(labels).map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

export function FacetPanel({ state, facets, onChange }: Props) {
  const known = facets !== null;
  const upper = (values: string[]) => values.map((v) => v.toUpperCase());
  const payouts: Bucket[] = Object.keys(PAYOUTS).map((p) => ({ value: p, count: counts(facets?.payout).get(p) ?? 0 }));
  const countries = (buckets: Facets['country'] | undefined): Bucket[] =>
    (buckets ?? []).map((b) => ({ value: b.value, count: b.count }));
  const terms: Bucket[] = (facets?.term ?? []).map((b) => ({ value: String(b.value), count: b.count }));
  const showTerms = state.type === 'deposit' || state.type === 'all';
  return (
    <div class="facets">
      <RadioFacet
        name="channel"
        legend="Sold"
        labels={CHANNELS}
        value={state.channel}
        buckets={counts(facets?.channel)}
        known={known}
        onPick={(channel) => onChange({ channel })}
      />
      {showTerms ? (
        <CheckFacet
          name="terms"
          legend="Term"
          buckets={terms}
          selected={state.terms}
          known={known}
          text={(v) => months(Number(v))}
          onPick={(t) => onChange({ terms: t })}
        />
      ) : null}
      <CheckFacet
        name="country"
        legend="Bank country"
        buckets={countries(facets?.country)}
        selected={upper(state.country)}
        known={known}
        text={(c) => countryName(c)}
        onPick={(country) => onChange({ country })}
      />
      <CheckFacet
        name="dgsCountry"
        legend="Guarantee country"
        buckets={countries(facets?.dgsCountry)}
        selected={upper(state.dgsCountry)}
        known={known}
        text={(c) => countryName(c)}
        onPick={(dgsCountry) => onChange({ dgsCountry })}
      />
      <CheckFacet
        name="payout"
        legend="Interest paid"
        buckets={payouts}
        selected={upper(state.payout)}
        known={known}
        text={(p) => label(PAYOUTS, p)}
        onPick={(payout) => onChange({ payout })}
      />
      <RadioFacet
        name="withholding"
        legend="Withholding tax"
        labels={WITHHOLDING}
        value={state.withholding}
        buckets={counts(facets?.withholding)}
        known={known}
        onPick={(withholding) => onChange({ withholding })}
      />
      <fieldset class="facet more">
        <legend>More conditions</legend>
        <div class="option">
          <input
            type="checkbox"
            id="fullDgs"
            checked={state.fullDgs === true}
            onChange={(e) => onChange({ fullDgs: e.currentTarget.checked })}
          />
          <label for="fullDgs">Whole amount covered by a deposit guarantee</label>
        </div>
        <div class="option">
          <input
            type="checkbox"
            id="includeIneligible"
            checked={state.includeIneligible === true}
            onChange={(e) => onChange({ includeIneligible: e.currentTarget.checked })}
          />
          <label for="includeIneligible">Also offers whose minimum or maximum does not fit the amount</label>
        </div>
        <Choice
          id="promotions"
          legend="Promotions"
          labels={PROMOTIONS}
          value={state.promotions}
          onPick={(promotions) => onChange({ promotions })}
        />
        <Choice
          id="newCustomers"
          legend="Customers"
          labels={NEW_CUSTOMERS}
          value={state.newCustomers}
          onPick={(newCustomers) => onChange({ newCustomers })}
        />
        <Choice
          id="currentAccount"
          legend="Current account"
          labels={CURRENT_ACCOUNT}
          value={state.currentAccount}
          onPick={(currentAccount) => onChange({ currentAccount })}
        />
        <Choice id="fees" legend="Fees" labels={FEES} value={state.fees} onPick={(fees) => onChange({ fees })} />
        <Choice
          id="earlyWithdrawal"
          legend="Early withdrawal"
          labels={EARLY_WITHDRAWAL}
          value={state.earlyWithdrawal}
          onPick={(earlyWithdrawal) => onChange({ earlyWithdrawal })}
        />
        <Choice
          id="freshness"
          legend="Data"
          labels={FRESHNESS}
          value={state.freshness}
          onPick={(freshness) => onChange({ freshness })}
        />
      </fieldset>
    </div>
  );
}
