// asOf on every root field that reads data: the field answers from the data version in force at that
// instant, with that instant as "now" for every rule that reads the clock. Without asOf, the present:
// the request's catalogue and the clock's minute. Each field records what it answered for, for the
// headers (REST) and the extensions (GraphQL) that name the version, its chain hash and its instant.
import type { ExecutionResult, GraphQLResolveInfo } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Catalog } from '../catalog/types.js';
import { METHOD_VERSION } from '../domain/method.js';
import type { At } from '../catalog/timeline.js';
import { clientError } from '../request/errors.js';
import type { Context } from './context.js';
import { createLoaders, HistoryCache, type Loaders } from './loaders.js';

/** Database reads of a past version, kept for the one request that asked (its answer is cached whole). */
const PAST_READS_BYTES = 2 * 1024 * 1024;

export const AS_OF_DESCRIPTION =
  'the answer as it stood at this instant (RFC 3339): the data version in force then (the last one observed at ' +
  'or before it) and this instant as "now" for every rule that reads the clock; an answer whose generatedAt ' +
  'is G is given again, byte for byte, with asOf=G';

export interface View {
  catalog: Catalog;
  now: Date;
  loaders: Loaders;
}

/** The view a root field answers from; throws a client error naming asOf when there is none. */
export async function viewAt(
  ctx: Context,
  asOf: Date | null | undefined,
  info: GraphQLResolveInfo,
  { catalogue = true } = {},
): Promise<View> {
  const key = info.path.key as string;
  if (asOf == null) {
    ctx.answered.set(key, { catalog: ctx.catalog, now: ctx.now, asOf: false, immutable: false });
    return { catalog: ctx.catalog, now: ctx.now, loaders: ctx.loaders };
  }
  const { services } = ctx;
  const found = await services.database.track(() => services.timeline.at(asOf, services.clock(), { catalogue }));
  if ('kind' in found) {
    const [code, message] =
      found.kind === 'future'
        ? (['BAD_USER_INPUT', `is in the future: the newest data is of ${found.latest.toISOString()}`] as const)
        : ([
            'NOT_FOUND',
            found.first
              ? `is before the first recorded data (${found.first.toISOString()})`
              : 'names an instant, but there is no data yet',
          ] as const);
    throw clientError(code, `asOf ${message}.`, { errors: [{ parameter: 'asOf', message }] });
  }
  ctx.answered.set(key, found);
  if (found.catalog === ctx.catalog) return { catalog: ctx.catalog, now: found.now, loaders: ctx.loaders };
  const reads = new HistoryCache(PAST_READS_BYTES).at(found.catalog.version);
  return {
    catalog: found.catalog,
    now: found.now,
    loaders: createLoaders(services.prisma, reads, services.database, found.catalog),
  };
}

/** What the answered fields share: their versions and instants (REST runs one field per operation). */
export function answeredAt(ctx: Context): At[] {
  return [...ctx.answered.values()];
}

/**
 * extensions.dataVersions: for each root field that read data (by its response key), the data version it
 * answered from and that version's chain hash (GET /api/ledger), and for asOf its instant, as REST says
 * in its headers.
 */
export function ledgerExtension(): Plugin<Context> {
  return {
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          const answered = (args.contextValue as Context).answered;
          if (!answered?.size || !result || Symbol.asyncIterator in result) return;
          const dataVersions = Object.fromEntries(
            [...answered].map(([key, at]) => [
              key,
              {
                version: at.catalog.version,
                chainHash: at.catalog.entry?.chainHash ?? null,
                ...(at.asOf ? { asOf: at.now.toISOString(), observedAt: at.catalog.generatedAt.toISOString() } : {}),
              },
            ]),
          );
          const done = result as ExecutionResult;
          setResult({ ...done, extensions: { ...done.extensions, dataVersions } });
        },
      };
    },
  };
}

/** The ranking method an answer was computed with (docs/calculation.md, "Method versions"). */
export function methodField<R>(t: { string(options: { description: string; resolve: () => string }): R }): R {
  return t.string({
    description: 'the version of the ranking method this answer was computed with (changelog: /api/docs/calculation)',
    resolve: () => METHOD_VERSION,
  });
}
