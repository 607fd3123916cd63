// The newest changes in the market, as they arrive (see api/live.ts); for a day in the past, the newest then.
import type { ChangeItemFragment } from '../gql/graphql.js';
import { formatDateTime } from '../format.js';
import { EVENTS } from '../labels.js';

interface Props {
  items: ChangeItemFragment[] | null;
  /** Ids that arrived after the page was loaded. */
  fresh: Set<string>;
  /** The past day the market is shown as of (as the page shows it), or null for now. */
  asOf: string | null;
  /** The API has no changes for that day (the page says why at the date). */
  refused: boolean;
  onOpen(offerId: string): void;
}

export function Changes({ items, fresh, asOf, refused, onOpen }: Props) {
  return (
    <section class="changes" aria-labelledby="changes-title">
      <h2 id="changes-title">{asOf ? `Latest changes as of ${asOf}` : 'Latest changes'}</h2>
      <p class="visually-hidden" aria-live="polite">
        {fresh.size ? `${fresh.size} new ${fresh.size === 1 ? 'change' : 'changes'}` : ''}
      </p>
      {refused ? (
        <p class="hint">No changes for this date.</p>
      ) : items === null ? (
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
