// The newest change events, then each change as it arrives. The service has no change stream yet, so this
// asks for the newest changes at once and then every minute while the page is visible (revalidating: a
// 304 when nothing changed). When the GraphQL subscription `changes` exists, this function is the one
// thing to replace: the page only calls followChanges(listener) and calls the function it returns to stop.
// It asks on its own, not with the list: the list must not fail because the changes (which need the
// database) cannot be had.
import { LatestChangesDocument, type ChangeItemFragment } from '../gql/graphql.js';
import { request } from './client.js';

export type ChangesListener = (items: ChangeItemFragment[]) => void;

export interface FollowOptions {
  limit: number;
  intervalMs?: number;
}

export function followChanges(listener: ChangesListener, { limit, intervalMs = 60_000 }: FollowOptions): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const controller = new AbortController();
  let first = true;
  const tick = async () => {
    if (first || document.visibilityState === 'visible') {
      try {
        const data = await request(LatestChangesDocument, { limit }, { fresh: !first, signal: controller.signal });
        first = false;
        if (!stopped) listener(data.changes.items);
      } catch {
        // Missed one: the next tick tries again.
      }
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
  };
}
