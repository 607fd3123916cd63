// GET /api/docs/calculation: docs/calculation.md (how an offer is calculated, for savers and
// integrators) as a page of the service, so that the link in the schema's Calc description leads
// somewhere for every client, not only for those who have the repository.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { marked } from 'marked';

/** The same file from src/rest and from dist/rest. */
const SOURCE = fileURLToPath(new URL('../../docs/calculation.md', import.meta.url));

export { CALCULATION_PATH } from '../graphql/schema/offer.js';

export function calculationPage(): string {
  const markdown = readFileSync(SOURCE, 'utf8');
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? 'How an offer is calculated';
  const body = marked.parse(markdown, { async: false, gfm: true });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font:16px/1.55 system-ui,sans-serif;margin:0 auto;max-width:900px;padding:1rem 2rem;color:#1d232a}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d8dde3;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f2f4f7}code{background:#f2f4f7;padding:0 .2rem;border-radius:3px}pre{background:#f2f4f7;padding:.5rem;overflow:auto}
</style></head><body>
<p><a href="/api/docs">API reference</a> · <a href="/graphql">GraphQL</a></p>
${body}
</body></html>`;
}
