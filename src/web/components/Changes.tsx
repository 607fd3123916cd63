// The newest changes in the market, as they arrive (see api/live.ts).
import type { ChangeItemFragment } from '../gql/graphql.js';
import { formatDateTime } from '../format.js';
import { EVENTS } from '../labels.js';

interface Props {
  items: ChangeItemFragment[] | null;
  /** Ids that arrived after the page was loaded. */
  fresh: Set<string>;
  onOpen(offerId: string): void;
}

export function Changes({ items, fresh, onOpen }: Props) {
  return (
    <section class="changes" aria-labelledby="changes-title">
      <h2 id="changes-title">Latest changes</h2>
      <p class="visually-hidden" aria-live="polite">
        {fresh.size ? `${fresh.size} new ${fresh.size === 1 ? 'change' : 'changes'}` : ''}
      </p>
      {items === null ? (
        <p class="hint">Loading…</p>
      ) : items.length === 0 ? (
        <p class="hint">No changes yet.</p>
      ) : (
        <ol class="events">
          {items.map((e) => (
            <li key={e.id} class={fresh.has(e.id) ? 'fresh' : undefined}>
              <span class={`kind ${e.kind.toLowerCase()}`}>{EVENTS[e.kind] ?? e.kind}</span>
              {fresh.has(e.id) ? <span class="badge info">new</span> : null}{' '}
              {e.offerId ? (
                <button type="button" class="link" onClick={() => onOpen(e.offerId!)}>
                  {e.summary}
                </button>
              ) : (
                <span>{e.summary}</span>
              )}{' '}
              <time dateTime={e.at}>{formatDateTime(e.at)}</time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
