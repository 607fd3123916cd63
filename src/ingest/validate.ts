// Validation of a whole snapshot before anything is written: every problem, each with its JSON path.
import type { z } from 'zod';
import { snapshotSchema, type Snapshot } from './snapshot.js';

export interface SnapshotProblem {
  /** JSON path into the snapshot, e.g. `$.offers[3].plan.tiers[1].from` */
  path: string;
  message: string;
}

/** A reference the snapshot does not resolve itself: the database must (checked by the ingest). */
export interface OpenReference {
  kind: 'brand' | 'institution' | 'source';
  id: string;
  path: string;
}

export type Validation =
  { ok: true; snapshot: Snapshot; openReferences: OpenReference[] } | { ok: false; problems: SnapshotProblem[] };

export function jsonPath(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>(
    (acc, seg) =>
      typeof seg === 'number'
        ? `${acc}[${seg}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(seg))
          ? `${acc}.${String(seg)}`
          : `${acc}[${JSON.stringify(String(seg))}]`,
    '$',
  );
}

function zodProblems(error: z.ZodError): SnapshotProblem[] {
  return error.issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message }));
}

/** Works on the raw input too, so duplicates are reported together with any shape problems. */
function duplicates(input: unknown, field: 'sources' | 'institutions' | 'brands' | 'offers'): SnapshotProblem[] {
  const items = (input as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(items)) return [];
  const seen = new Map<string, number>();
  const problems: SnapshotProblem[] = [];
  items.forEach((item: unknown, i) => {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else
      problems.push({
        path: jsonPath([field, i, 'id']),
        message: `duplicate id "${id}" (first at ${jsonPath([field, first])})`,
      });
  });
  return problems;
}

export function validateSnapshot(input: unknown): Validation {
  const parsed = snapshotSchema.safeParse(input);
  const problems = [
    ...(parsed.success ? [] : zodProblems(parsed.error)),
    ...(['sources', 'institutions', 'brands', 'offers'] as const).flatMap((field) => duplicates(input, field)),
  ];
  if (!parsed.success) return { ok: false, problems };
  const snapshot = parsed.data;

  const sourceIds = new Set(snapshot.sources.map((s) => s.id));
  const institutionIds = new Set(snapshot.institutions.map((i) => i.id));
  const brandIds = new Set(snapshot.brands.map((b) => b.id));
  const openReferences: OpenReference[] = [];
  snapshot.brands.forEach((b, i) => {
    if (!institutionIds.has(b.institutionId))
      openReferences.push({ kind: 'institution', id: b.institutionId, path: jsonPath(['brands', i, 'institutionId']) });
  });
  snapshot.offers.forEach((o, i) => {
    if (!brandIds.has(o.brandId))
      openReferences.push({ kind: 'brand', id: o.brandId, path: jsonPath(['offers', i, 'brandId']) });
    if (!sourceIds.has(o.sourceId))
      openReferences.push({ kind: 'source', id: o.sourceId, path: jsonPath(['offers', i, 'sourceId']) });
  });

  return problems.length > 0 ? { ok: false, problems } : { ok: true, snapshot, openReferences };
}

/** Problems for the open references that the database does not resolve either. */
export function unresolvedReferences(
  refs: readonly OpenReference[],
  known: { brand: ReadonlySet<string>; institution: ReadonlySet<string>; source: ReadonlySet<string> },
): SnapshotProblem[] {
  return refs
    .filter((ref) => !known[ref.kind].has(ref.id))
    .map((ref) => ({
      path: ref.path,
      message: `unknown ${ref.kind} "${ref.id}": neither in this snapshot nor in the database`,
    }));
}

/** How far ahead of the clock an observedAt may be unless configured (INGEST_MAX_FUTURE_SKEW_MINUTES). */
export const DEFAULT_MAX_FUTURE_SKEW_MINUTES = 5;

const span = (ms: number): string => {
  const minutes = Math.ceil(ms / 60_000);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
};

/**
 * A snapshot dated ahead of the clock. History is append-only, so accepting one would make every real
 * snapshot until its time fail as "before the last applied snapshot" (issue 19): a source that slipped
 * a time zone would lock out the present for hours.
 */
export function aheadOfClock(observedAt: string, now: Date, maxSkewMs: number): SnapshotProblem[] {
  const ahead = Date.parse(observedAt) - now.getTime();
  if (ahead <= maxSkewMs) return [];
  return [
    {
      path: '$.observedAt',
      message:
        `${observedAt} is ${span(ahead)} ahead of the clock (${now.toISOString()}); at most ${span(maxSkewMs)} ` +
        `is accepted (INGEST_MAX_FUTURE_SKEW_MINUTES): is the source's clock or time zone wrong?`,
    },
  ];
}
