// The comparison page: the URL is the state; each change of it is one GraphQL request for the list
// (with its facets, term curve, type maxima and market summary) or for the savings plan, and, with an
// offer open, one for it. A request the API refuses leaves the last good answer on screen, marked so.
// With a day in the past (asOf), every request asks for the market as it stood then, and a banner says so.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { preload } from './api/client.js';
import { followChanges } from './api/live.js';
import { useQuery } from './api/use-query.js';
import { Changes } from './components/Changes.js';
import { Controls } from './components/Controls.js';
import { OfferDialog } from './components/Detail.js';
import { FacetPanel } from './components/Facets.js';
import { Market } from './components/Market.js';
import { Results } from './components/Results.js';
import {
  ComparisonDocument,
  SavingsPlanDocument,
  type ChangeItemFragment,
  type MarketSummaryFragment,
} from './gql/graphql.js';
import { formatAsOf, formatCount, formatDateTime, formatRate } from './format.js';
import { inPageWords } from './problems.js';
import {
  asOfInstant,
  listVariables,
  parseState,
  planVariables,
  serializeState,
  VIEWS,
  withChange,
  type PageState,
  type View,
} from './state.js';

const CHANGES = 8;
const VIEW_NAMES: Record<View, string> = { list: 'Offers', plan: 'Savings plan', market: 'Market' };
/** Problems shown at their own field rather than above the list. */
const AT_FIELDS = ['amount', 'horizon', 'asOf'];

type PlanModule = typeof import('./components/Plan.js');
/** The plan view's code, loaded the first time it is shown (preloadFirst starts it early for a plan URL). */
export const loadPlanView = (): Promise<PlanModule> => import('./components/Plan.js');

/** Starts the first request before the first render: the list's or the plan's, for the URL's state. */
export function preloadFirst(): void {
  const state = parseState(location.search);
  if (state.view === 'plan') {
    preload(SavingsPlanDocument, planVariables(state));
    void loadPlanView();
  } else preload(ComparisonDocument, listVariables(state));
}

function useUrlState(): [PageState, (next: PageState) => void] {
  const [state, setState] = useState(() => parseState(location.search));
  useEffect(() => {
    const onPop = () => setState(parseState(location.search));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((next: PageState) => {
    const search = serializeState(next);
    if (search !== location.search) history.pushState(null, '', search || location.pathname);
    setState(next);
  }, []);
  return [state, navigate];
}

export function App() {
  const [state, navigate] = useUrlState();
  const change = (c: Partial<PageState>) => navigate(withChange(state, c));
  const open = (offer: string) => navigate({ ...state, offer });
  const planView = state.view === 'plan';

  const listKey = planView ? null : JSON.stringify(listVariables(state));
  const variables = useMemo(() => (planView ? null : listVariables(state)), [listKey]);
  const list = useQuery(ComparisonDocument, variables, listKey, { keepOnError: true });
  const planKey = planView ? JSON.stringify(planVariables(state)) : null;
  const planVars = useMemo(() => (planView ? planVariables(state) : null), [planKey]);
  const plan = useQuery(SavingsPlanDocument, planVars, planKey, { keepOnError: true });
  const current = planView ? plan : list;
  const products = list.data?.products ?? null;
  const market: MarketSummaryFragment | null = (planView ? plan.data?.single : products) ?? null;
  // Whether the answer on screen is of the instant asked for (not the last one kept, nor one still loading).
  const asOf = asOfInstant(state.asOf);
  const shownAsOf = current.key ? (JSON.parse(current.key) as { asOf?: string }).asOf : undefined;
  const dataOf = market && !current.loading && shownAsOf === asOf ? market.generatedAt : null;
  const when = state.asOf ? `on ${formatAsOf(state.asOf)}` : 'today';

  const [planModule, setPlanModule] = useState<PlanModule | null>(null);
  useEffect(() => {
    if (planView && !planModule) void loadPlanView().then((m) => setPlanModule(m));
  }, [planView]);

  // The newest changes follow on their own, once the list is on screen (they are not on its critical path);
  // a day in the past asks for its own, once.
  const [changes, setChanges] = useState<ChangeItemFragment[] | null>(null);
  const [changesRefused, setChangesRefused] = useState(false);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const listShown = useRef(false);
  listShown.current ||= market !== null;
  useEffect(() => {
    if (!listShown.current) return;
    let known: Set<string> | null = null;
    setChanges(null);
    setChangesRefused(false);
    setFresh(new Set());
    return followChanges(
      (items) => {
        if (known) {
          const arrived = items.filter((e) => !known!.has(e.id)).map((e) => e.id);
          if (arrived.length) setFresh((f) => new Set([...f, ...arrived]));
        }
        known = new Set([...(known ?? []), ...items.map((e) => e.id)]);
        setChanges(items);
      },
      { limit: CHANGES, asOf: asOfInstant(state.asOf), onRefused: () => setChangesRefused(true) },
    );
  }, [listShown.current, state.asOf]);

  // When the list is first on screen: the page's "time to list" (performance.getEntriesByName('list-shown')).
  useEffect(() => {
    if (products && performance.getEntriesByName('list-shown').length === 0) performance.mark('list-shown');
  }, [products]);

  const problems = useMemo(
    () =>
      new Map(
        (current.error?.problems ?? []).filter((p) => p.parameter).map((p) => [p.parameter!, inPageWords(p, state)]),
      ),
    [current.error],
  );
  const general = (current.error?.problems ?? []).filter((p) => !p.parameter || !AT_FIELDS.includes(p.parameter));
  const stale = current.error !== null && current.data !== null;
  const typeCounts = products && !planView ? new Map(products.facets.type.map((b) => [b.value, b.count])) : null;
  // An offer opened from the plan is shown for its part of the amount (known once the plan is).
  const part = plan.data?.plan.allocations.find((a) => a.offer.id === state.offer);
  const detailAmount = planView ? (plan.data ? (part?.amount ?? state.amount) : null) : state.amount;

  return (
    <>
      <a class="skip" href="#main">
        Skip to the offers
      </a>
      {state.asOf ? (
        <section class="as-of" aria-label="A past market">
          <div class="wrap">
            <p role="status">
              You are looking at the market as it stood on <strong>{formatAsOf(state.asOf)}</strong>
              {dataOf ? <> (data of {formatDateTime(dataOf)})</> : null}.
            </p>
            <a
              class="button"
              href={serializeState(withChange(state, { asOf: '' })) || '/'}
              onClick={(e) => {
                e.preventDefault();
                change({ asOf: '' });
              }}
            >
              Back to today
            </a>
          </div>
        </section>
      ) : null}
      <header class="top">
        <div class="wrap">
          <h1>Savings rates compared</h1>
          {market ? (
            <p class="market-line">
              {formatCount(market.market.offers)} offers from {formatCount(market.market.institutions)} banks (
              {formatCount(market.market.verifiedDgs)} with a verified deposit guarantee). Best {when}: flexible{' '}
              {rate(market.market.best.flexible)}, notice {rate(market.market.best.notice)}, 1-year deposit{' '}
              {rate(market.market.best.deposit12)}, 5-year deposit {rate(market.market.best.deposit60)}.
            </p>
          ) : (
            <p class="market-line">Every offer calculated for your amount, ranked by what it earns.</p>
          )}
        </div>
      </header>
      <main id="main" class="wrap" tabIndex={-1}>
        <Controls state={state} problems={problems} typeCounts={typeCounts} onChange={change} />
        {general.length ? (
          <div class="problems" role="alert">
            {general.map((p, i) => (
              <p key={i}>{inPageWords(p, state)}</p>
            ))}
          </div>
        ) : null}
        <nav class="views" aria-label="Views">
          {VIEWS.map((view) => (
            <a
              key={view}
              href={serializeState({ ...state, view }) || '/'}
              aria-current={state.view === view ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate({ ...state, view });
              }}
            >
              {VIEW_NAMES[view]}
            </a>
          ))}
        </nav>
        <div class="layout">
          <div class="primary">
            {planView ? (
              planModule ? (
                <planModule.PlanView
                  state={state}
                  data={plan.data}
                  loading={plan.loading}
                  stale={stale}
                  onChange={change}
                  onOpen={open}
                />
              ) : (
                <p role="status">Loading…</p>
              )
            ) : state.view === 'market' ? (
              <Market
                state={state}
                list={products}
                history={list.data?.marketHistory?.items ?? null}
                onChange={change}
                onOpen={open}
              />
            ) : (
              <div class="list-layout">
                <details class="filters" open={wide()}>
                  <summary>Filters</summary>
                  <FacetPanel state={state} facets={products?.facets ?? null} onChange={change} />
                </details>
                <Results
                  state={state}
                  list={products}
                  loading={list.loading}
                  stale={stale}
                  onChange={change}
                  onOpen={open}
                />
              </div>
            )}
          </div>
          <aside class="side">
            <Changes
              items={changes}
              fresh={fresh}
              asOf={state.asOf ? formatAsOf(state.asOf) : null}
              refused={changesRefused}
              onOpen={open}
            />
          </aside>
        </div>
      </main>
      <footer class="wrap foot">
        <p>
          Rates are gross, per year, as published by the provider; variable rates can change. The ranking follows only
          from the rate, your amount and the deposit guarantee. This is not advice.
          {market ? <> Data of {formatDateTime(market.generatedAt)}.</> : null}
        </p>
        <p>
          The same data as an API: <a href="/api/docs">REST</a> and <a href="/graphql">GraphQL</a>.
        </p>
      </footer>
      {state.offer ? (
        <OfferDialog
          key="detail"
          state={state}
          amount={detailAmount}
          onClose={() => navigate({ ...state, offer: '' })}
          onOpen={open}
        />
      ) : null}
    </>
  );
}

const rate = (value: string | null | undefined) => (value ? formatRate(value) : '—');
const wide = () => typeof matchMedia === 'function' && matchMedia('(min-width: 62rem)').matches;
