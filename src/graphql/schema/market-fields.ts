// The market view's categories as GraphQL fields, for the list's summary of the latest day (MarketBest)
// and the history's days (MarketDay): one definition, each type describing them in its own words.
import type { MarketBest } from '../../catalog/market.js';
import type { builder } from '../builder.js';
import { perYear } from '../scalars.js';

type FieldBuilder<P> = PothosSchemaTypes.ObjectFieldBuilder<
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never,
  P
>;

const CATEGORIES = [
  ['flexible', 'flexible accounts'],
  ['notice', 'notice accounts'],
  ['deposit12', '12-month deposits'],
  ['deposit60', '60-month deposits'],
] as const;

/** The best headline rate of each category, described by `describe` (what the rate is of). */
export function marketCategoryFields<P extends MarketBest>(t: FieldBuilder<P>, describe: (what: string) => string) {
  return Object.fromEntries(
    CATEGORIES.map(([name, what]) => [
      name,
      t.field({ type: 'Decimal', nullable: true, description: perYear(describe(what)), resolve: (b) => b[name] }),
    ]),
  ) as Record<(typeof CATEGORIES)[number][0], ReturnType<typeof t.field>>;
}
