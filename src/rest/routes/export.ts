// GET /api/products/export (contract §6): the list's every matching row as CSV, streamed page by page.
import { answerInstant } from '../../catalog/freshness.js';
import { PARAM_LIMITS } from '../../graphql/args.js';
import { answeredAt } from '../../graphql/as-of.js';
import { etagOf, STREAM_ETAG } from '../../http/layer.js';
import { fieldOperation } from '../projection.js';
import { schema } from '../../graphql/schema/index.js';
import { CSV_COLUMNS, csvStream, EXPORT_SELECTION, type ExportItem } from '../csv.js';
import { canonicalQuery, queryParams } from '../params.js';
import { DATA, type RestRoute } from '../route.js';

const params = queryParams('products').filter((p) => p.name !== 'page' && p.name !== 'pageSize');
// One document for every export, whatever the filters: each distinct document costs a compiled query
// (graphql-jit, hundreds of KB), so one per combination of parameters would fill memory.
const operation = fieldOperation(
  schema,
  'products',
  params,
  { page: 'Int', pageSize: 'Int' },
  `total items { ${EXPORT_SELECTION} }`,
);

type Page = { products: { total: number; items: ExportItem[] } };

export const exportRoute: RestRoute = {
  path: '/api/products/export',
  operationId: 'exportProducts',
  tag: 'Offers',
  summary: 'The same list as CSV',
  description:
    'Every matching row (page and pageSize are ignored): separator `;`, decimal comma, UTF-8 with BOM, CRLF line ends.',
  params,
  // Streamed, so never kept whole; its ETag comes from the request and the data version.
  cache: { ...DATA, reuse: 'never' },
  body: { csv: `UTF-8 with BOM, CRLF, \`;\`-separated, decimal comma; columns: ${CSV_COLUMNS.join(';')}` },
  readsDatabase: false,
  async handle({ variables, run, context }) {
    // Pages of 500 rows. Smaller pages hold the loop for less (GraphQL presents a page's rows in one
    // stretch, ≈0.1 ms a row: beside two exports health's p99 was 31 ms with pages of 100, 61 ms with 500),
    // but each page waits in the list lane behind the tasks queued before it: under load over 13,000
    // offers, pages of 100 made exports run past the request's timeout.
    const pageSize = PARAM_LIMITS.pageSizeMax;
    const page = (n: number) => run<Page>(operation, { ...variables, page: n, pageSize });
    // The first page decides the answer (a 4xx before any byte is sent); later pages only stream.
    const { total, items } = (await page(1)).products;
    const pages = (async function* () {
      yield items;
      for (let n = 2; (n - 1) * pageSize < total; n++) yield (await page(n)).products.items;
    })();
    // The same data version, the same parameters and the same instant (for freshness=24h, which reads the
    // clock) give the same bytes; asOf only names which version and instant, so it is not part of the tag.
    const at = answeredAt(await context())[0]!;
    const instant = answerInstant(at.catalog.generatedAt, at.now, variables.freshness === 'LAST_24H');
    const { asOf: _asOf, ...rest } = variables;
    const etag = etagOf(`${at.catalog.version}|${canonicalQuery(rest)}|${instant.toISOString()}`);
    return new Response(csvStream(pages), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="savings-offers.csv"',
        // what the list's generatedAt says, which a CSV has no place for: asOf=this gives these bytes again
        'generated-at': instant.toISOString(),
        [STREAM_ETAG]: etag,
      },
    });
  },
};
