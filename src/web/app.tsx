// The comparison page: the URL is the state; each change of it is one GraphQL request for the list
// (with its facets, term curve, type maxima and market summary) and, with an offer open, one for it.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { followChanges } from './api/live.js';
import { useQuery } from './api/use-query.js';
import { Changes } from './components/Changes.js';
import { Controls } from './components/Controls.js';
import { OfferDialog } from './components/Detail.js';
import { FacetPanel } from './components/Facets.js';
import { Market } from './components/Market.js';
import { Results } from './components/Results.js';
import { ComparisonDocument, type ChangeItemFragment } from './gql/graphql.js';
import { formatCount, formatDateTime, formatRate } from './format.js';
import { listVariables, parseState, serializeState, withChange, type PageState } from './state.js';

const CHANGES = 8;

/** The first request: the list for the URL's state. */
export const firstVariables = () => listVariables(parseState(location.search));

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

  const listKey = JSON.stringify(listVariables(state));
  const variables = useMemo(() => listVariables(state), [listKey]);
  const list = useQuery(ComparisonDocument, variables, listKey);
  const products = list.data?.products ?? null;

  // The newest changes follow on their own, once the list is on screen (they are not on its critical path).
  const [changes, setChanges] = useState<ChangeItemFragment[] | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const listShown = products !== null;
  const following = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (!listShown || following.current) return;
    let known: Set<string> | null = null;
    following.current = followChanges(
      (items) => {
        if (known) {
          const arrived = items.filter((e) => !known!.has(e.id)).map((e) => e.id);
          if (arrived.length) setFresh((f) => new Set([...f, ...arrived]));
        }
        known = new Set([...(known ?? []), ...items.map((e) => e.id)]);
        setChanges(items);
      },
      { limit: CHANGES },
    );
  }, [listShown]);
  useEffect(() => () => following.current?.(), []);

  // When the list is first on screen: the page's "time to list" (performance.getEntriesByName('list-shown')).
  useEffect(() => {
    if (products && performance.getEntriesByName('list-shown').length === 0) performance.mark('list-shown');
  }, [products]);

  const problems = useMemo(
    () => new Map((list.error?.problems ?? []).filter((p) => p.parameter).map((p) => [p.parameter!, p.message])),
    [list.error],
  );
  const general = (list.error?.problems ?? []).filter(
    (p) => !p.parameter || !['amount', 'horizon'].includes(p.parameter),
  );
  const typeCounts = products ? new Map(products.facets.type.map((b) => [b.value, b.count])) : null;

  return (
    <>
      <a class="skip" href="#main">
        Skip to the offers
      </a>
      <header class="top">
        <div class="wrap">
          <h1>Savings rates compared</h1>
          {products ? (
            <p class="market-line">
              {formatCount(products.market.offers)} offers from {formatCount(products.market.institutions)} banks (
              {formatCount(products.market.verifiedDgs)} with a verified deposit guarantee). Best today: flexible{' '}
              {rate(products.market.best.flexible)}, notice {rate(products.market.best.notice)}, 1-year deposit{' '}
              {rate(products.market.best.deposit12)}, 5-year deposit {rate(products.market.best.deposit60)}.
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
              <p key={i}>{p.parameter ? `${p.parameter}: ${p.message}` : p.message}</p>
            ))}
          </div>
        ) : null}
        <nav class="views" aria-label="Views">
          {(['list', 'market'] as const).map((view) => (
            <a
              key={view}
              href={serializeState({ ...state, view }) || '/'}
              aria-current={state.view === view ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate({ ...state, view });
              }}
            >
              {view === 'list' ? 'Offers' : 'Market'}
            </a>
          ))}
        </nav>
        <div class="layout">
          <div class="primary">
            {state.view === 'market' ? (
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
                <Results state={state} list={products} loading={list.loading} onChange={change} onOpen={open} />
              </div>
            )}
          </div>
          <aside class="side">
            <Changes items={changes} fresh={fresh} onOpen={open} />
          </aside>
        </div>
      </main>
      <footer class="wrap foot">
        <p>
          Rates are gross, per year, as published by the provider; variable rates can change. The ranking follows only
          from the rate, your amount and the deposit guarantee. This is not advice.
          {products ? <> Data of {formatDateTime(products.generatedAt)}.</> : null}
        </p>
        <p>
          The same data as an API: <a href="/api/docs">REST</a> and <a href="/graphql">GraphQL</a>.
        </p>
      </footer>
      {state.offer ? (
        <OfferDialog key="detail" state={state} onClose={() => navigate({ ...state, offer: '' })} onOpen={open} />
      ) : null}
    </>
  );
}

const rate = (value: string | null | undefined) => (value ? formatRate(value) : '—');
const wide = () => typeof matchMedia === 'function' && matchMedia('(min-width: 62rem)').matches;
