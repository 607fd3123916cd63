// GET /api/docs/calculation: docs/calculation.md (how an offer is calculated, for savers and
// integrators) as a page of the service, so that the link in the schema's Calc description leads
// somewhere for every client, not only for those who have the repository.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { marked } from 'marked';
import { htmlPage, type HtmlPage } from './html-page.js';

/** The same file from src/rest and from dist/rest. */
const SOURCE = fileURLToPath(new URL('../../docs/calculation.md', import.meta.url));

export { CALCULATION_PATH } from '../graphql/schema/offer.js';

export function calculationPage(): HtmlPage {
  const markdown = readFileSync(SOURCE, 'utf8');
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? 'How an offer is calculated';
  const body = marked.parse(markdown, { async: false, gfm: true });
  return htmlPage({
    title,
    style: 'body{max-width:900px;font-size:16px;line-height:1.55}',
    body: `<p><a href="/api/docs">API reference</a> · <a href="/graphql">GraphQL</a></p>\n${body}`,
  });
}
