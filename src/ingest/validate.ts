// Validation of a whole snapshot before anything is written: every problem, each with its JSON path.
import { isUtf8 } from 'node:buffer';
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

/**
 * Where the first byte sequence that is not UTF-8 starts, or -1. Decoding with replacement would keep
 * a file's stray Latin-1 byte as U+FFFD in names and summaries for good; a fatal decoder says that
 * something is wrong, not where.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // The length of the sequence and the range of its second byte (which excludes overlong forms,
    // surrogates and code points beyond U+10FFFF), per the Unicode standard's table 3-7.
    const [length, low, high] =
      lead >= 0xc2 && lead <= 0xdf
        ? [2, 0x80, 0xbf]
        : lead === 0xe0
          ? [3, 0xa0, 0xbf]
          : lead === 0xed
            ? [3, 0x80, 0x9f]
            : lead >= 0xe1 && lead <= 0xef
              ? [3, 0x80, 0xbf]
              : lead === 0xf0
                ? [4, 0x90, 0xbf]
                : lead >= 0xf1 && lead <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : lead === 0xf4
                    ? [4, 0x80, 0x8f]
                    : [0, 0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) if (bytes[i + k]! < 0x80 || bytes[i + k]! > 0xbf) return i;
    i += length;
  }
  return -1;
}

const BOM = [0xef, 0xbb, 0xbf];

/** A snapshot file's bytes as JSON: UTF-8 (RFC 8259 §8.1), a leading byte order mark ignored. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  const start = BOM.every((b, i) => bytes[i] === b) ? BOM.length : 0;
  const body = bytes.subarray(start);
  const bad = firstInvalidUtf8(body);
  if (bad >= 0) {
    const offset = start + bad;
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line += 1;
    const shown = [...bytes.subarray(offset, offset + 4)].map((b) => `0x${b.toString(16).padStart(2, '0')}`);
    throw new Error(
      `invalid UTF-8 at byte offset ${offset} (line ${line}), where the bytes are ${shown.join(' ')}: ` +
        'a snapshot must be saved as UTF-8',
    );
  }
  return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as unknown;
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

/**
 * "-0", "-0.0" and "-0.00" are zero: the sign goes, so that snapshots equal in value are equal (and
 * hash alike). Here rather than as a transform in the schema, which made zod take twice as long.
 */
function unsignedZeros(snapshot: Snapshot): Snapshot {
  const unsigned = <T extends string | null>(rate: T): T =>
    (rate !== null && rate.startsWith('-0') && /^-0(\.0+)?$/.test(rate) ? rate.slice(1) : rate) as T;
  for (const { plan, withholding } of snapshot.offers) {
    plan.headlineRate = unsigned(plan.headlineRate);
    for (const tier of plan.tiers) tier.rate = unsigned(tier.rate);
    if (plan.promotion) plan.promotion.rate = unsigned(plan.promotion.rate);
    withholding.rate = unsigned(withholding.rate);
    withholding.reducedRate = unsigned(withholding.reducedRate);
  }
  return snapshot;
}

export function validateSnapshot(input: unknown): Validation {
  const parsed = snapshotSchema.safeParse(input);
  const problems = [
    ...(parsed.success ? [] : zodProblems(parsed.error)),
    ...(['sources', 'institutions', 'brands', 'offers'] as const).flatMap((field) => duplicates(input, field)),
  ];
  if (!parsed.success) return { ok: false, problems };
  const snapshot = unsignedZeros(parsed.data);

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
