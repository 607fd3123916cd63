// A change event as an item of GET /api/changes (REST spelling), for the answers that are not the value
// of a GraphQL operation: the change stream's `data:` lines. The same keys in the same order as the
// projection of ChangeEvent (test/stream.test.ts compares the two for every event).
import type { EventItem } from '../catalog/shapes.js';
import type { ChangeImpact } from '../domain/impact.js';

export function changeItemJson(e: EventItem, impact: ChangeImpact | null): string {
  return JSON.stringify({
    id: String(e.id),
    kind: e.kind,
    at: e.at.toISOString(),
    offerId: e.offerId,
    brandId: e.brandId,
    institutionId: e.institutionId,
    summary: e.summary,
    from: e.from,
    to: e.to,
    impact: impact && {
      amount: impact.amount,
      returnPerYearBefore: impact.returnPerYearBefore,
      returnPerYearAfter: impact.returnPerYearAfter,
      delta: impact.delta,
    },
  });
}
