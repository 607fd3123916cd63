// The newest change events, then each change as it is ingested. The newest are asked for once (the
// GraphQL query, cached like every GET), then the page follows GET /api/changes/stream from the newest
// id it has, so nothing that lands in between is missed. EventSource reconnects by itself and resumes
// with Last-Event-ID; a stream the service refused (a 429 or 503: EventSource gives up on those) is
// opened again after a while. A stream that resumed from further back than the service keeps for
// resuming says so (`event: reset`): the newest are asked for again. It asks on its own, not with the
// list: the list must not fail because the changes (which need the database) cannot be had. The market
// as it stood at a past instant does not move: its newest changes then are asked for once, not followed.
import { LatestChangesDocument, type ChangeItemFragment } from '../gql/graphql.js';
import { EVENTS } from '../labels.js';
import { ApiError, request } from './client.js';

export type ChangesListener = (items: ChangeItemFragment[]) => void;

export interface FollowOptions {
  limit: number;
  /** An instant: the newest changes as they stood then, once. */
  asOf?: string;
  /** The API refused the instant: there is nothing to ask again. */
  onRefused?(error: ApiError): void;
  /** How long to wait before asking again after a failure. */
  retryMs?: number;
}

/** What the stream's events are named: the kinds in REST spelling (rate_up). */
const KINDS = Object.keys(EVENTS).map((kind) => kind.toLowerCase());

/** An event of the stream (an item of /api/changes, REST spelling) as the page's GraphQL fragment. */
function asItem(data: string): ChangeItemFragment | null {
  try {
    const e = JSON.parse(data) as Omit<ChangeItemFragment, 'kind'> & { kind: string };
    return { ...e, kind: e.kind.toUpperCase() as ChangeItemFragment['kind'] };
  } catch {
    return null;
  }
}

export function followChanges(
  listener: ChangesListener,
  { limit, asOf, onRefused, retryMs = 30_000 }: FollowOptions,
): () => void {
  let stopped = false;
  let items: ChangeItemFragment[] = [];
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const controller = new AbortController();

  const arrived = (event: Event) => {
    const item = asItem((event as MessageEvent<string>).data);
    if (!item || items.some((e) => e.id === item.id)) return;
    items = [item, ...items].slice(0, limit);
    listener(items);
  };

  /** The newest again, keeping what arrived meanwhile. */
  const reread = async () => {
    try {
      const data = await request(LatestChangesDocument, { limit }, { signal: controller.signal });
      if (stopped) return;
      const listed = new Set(data.changes.items.map((e) => e.id));
      const newer = items.filter((e) => !listed.has(e.id) && Number(e.id) > Number(data.changes.items[0]?.id ?? 0));
      items = [...newer, ...data.changes.items].slice(0, limit);
      listener(items);
    } catch {
      // the list stays as it is; new events still arrive
    }
  };

  const follow = (since: string | undefined) => {
    if (stopped) return;
    source = new EventSource(`/api/changes/stream${since ? `?since=${encodeURIComponent(since)}` : ''}`);
    for (const kind of KINDS) source.addEventListener(kind, arrived);
    source.addEventListener('reset', () => void reread());
    source.addEventListener('error', () => {
      if (source?.readyState !== EventSource.CLOSED) return; // reconnecting by itself
      source = undefined;
      timer = setTimeout(() => follow(items[0]?.id ?? since), retryMs);
    });
  };

  const start = async () => {
    try {
      const data = await request(LatestChangesDocument, { limit, asOf }, { signal: controller.signal });
      if (stopped) return;
      items = data.changes.items;
      listener(items);
      if (asOf === undefined) follow(items[0]?.id ?? '0');
    } catch (err) {
      if (stopped) return;
      if (asOf !== undefined && err instanceof ApiError && err.problems.some((p) => p.parameter === 'asOf'))
        onRefused?.(err);
      else timer = setTimeout(() => void start(), retryMs);
    }
  };
  void start();

  return () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
    source?.close();
  };
}
