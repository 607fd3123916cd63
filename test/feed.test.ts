// The Atom feed as feed readers and feed validators read it (RFC 4287 and the rules validators apply on top
// of it): every link absolute (readers keep entries, not the document's address, so a relative link breaks
// in them), a self link that is the feed's own REST URL, required elements present, dates in RFC 3339,
// entry ids unique, and every link leading somewhere.
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, serve, type TestApp } from './support/app.js';

type Link = { '@_rel'?: string; '@_href': string; '@_type'?: string };
type Entry = { id: string; title: unknown; updated: string; link: Link[]; content: unknown };
type Feed = { '@_xmlns': string; id: string; title: unknown; updated: string; author?: { name: string }; link: Link[] };

const parser = new XMLParser({
  ignoreAttributes: false,
  isArray: (name) => name === 'link' || name === 'entry',
});
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The problems a validator would report, as readable lines; none for a valid feed fetched from `url`. */
function problems(xml: string, url: string): string[] {
  const found: string[] = [];
  const doc = parser.parse(xml) as { feed?: Feed & { entry?: Entry[] } };
  const feed = doc.feed;
  if (!feed) return ['no feed element'];
  if (feed['@_xmlns'] !== 'http://www.w3.org/2005/Atom') found.push('feed not in the Atom namespace');
  for (const name of ['id', 'title', 'updated'] as const)
    if (feed[name] === undefined) found.push(`feed lacks ${name}`);
  if (!RFC3339.test(feed.updated)) found.push(`feed updated not RFC 3339: ${feed.updated}`);
  const entries = feed.entry ?? [];
  if (!feed.author && entries.some((e) => !('author' in e))) found.push('no author for the feed or its entries');
  const self = feed.link.filter((l) => l['@_rel'] === 'self');
  if (self.length !== 1) found.push(`${self.length} self links`);
  else if (self[0]!['@_href'] !== url) found.push(`self link ${self[0]!['@_href']} is not the feed's URL ${url}`);
  const links = [...feed.link, ...entries.flatMap((e) => e.link)];
  for (const link of links)
    if (!/^https?:\/\/[^/]+\//.test(link['@_href'])) found.push(`relative link ${link['@_href']}`);
  const ids = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    for (const name of ['id', 'title', 'updated'] as const)
      if (entry[name] === undefined) found.push(`entry ${i} lacks ${name}`);
    if (!RFC3339.test(entry.updated)) found.push(`entry ${i} updated not RFC 3339`);
    if (!/^[a-z][a-z0-9+.-]*:/.test(entry.id)) found.push(`entry ${i} id is not a URI`);
    if (ids.has(entry.id)) found.push(`entry id ${entry.id} twice`);
    ids.add(entry.id);
    if (!entry.link.some((l) => (l['@_rel'] ?? 'alternate') === 'alternate')) found.push(`entry ${i} has no link`);
  }
  return found;
}

let t: TestApp;
let base: string;
let close: () => Promise<void>;
beforeAll(async () => {
  t = await createTestApp();
  ({ base, close } = await serve(t.app));
});
afterAll(async () => {
  await close?.();
  await t?.close();
});

describe('GET /api/changes/feed for feed readers', () => {
  it('passes the validator rules, its links absolute from the origin the request named', async () => {
    const url = `${base}/api/changes/feed?kind=rate_down&type=all`;
    const xml = await (await fetch(url)).text();
    expect(problems(xml, url)).toEqual([]);
    // Reached under another name, the same feed names that one.
    const other = 'http://rates.other.test:8080/api/changes/feed?kind=rate_down&type=all';
    const xmlOther = await (await t.app.fetch(new Request(other))).text();
    expect(problems(xmlOther, other)).toEqual([]);
  });

  it('spells its self link as a REST URL, whatever form the filters were given in', async () => {
    const xml = await (await fetch(`${base}/api/changes/feed?type=all&kind[]=rate_up&kind[]=rate_down`)).text();
    const self = (parser.parse(xml) as { feed: Feed }).feed.link.find((l) => l['@_rel'] === 'self')!['@_href'];
    const query = new URL(self).searchParams;
    expect(query.getAll('kind')).toEqual(['rate_down', 'rate_up']);
    expect(query.get('type')).toBe('all');
    // The self link and every entry's link lead to answers.
    expect((await fetch(self)).status).toBe(200);
    const entries = (parser.parse(xml) as { feed: { entry: Entry[] } }).feed.entry;
    // An entry links to its offer, which answers (or, for an offer removed since, is a 404 problem).
    const statuses = [];
    for (const entry of entries.slice(0, 5)) statuses.push((await fetch(entry.link[0]!['@_href'])).status);
    expect(statuses.every((status) => status === 200 || status === 404)).toBe(true);
    expect(statuses).toContain(200);
  });

  it('names PUBLIC_URL when one is configured (behind a proxy)', async () => {
    const proxied = await createTestApp({ env: { PUBLIC_URL: 'https://rates.example.org/savings/' } });
    try {
      const xml = await (await proxied.get('/api/changes/feed?type=all')).text();
      expect(problems(xml, 'https://rates.example.org/savings/api/changes/feed?type=all')).toEqual([]);
    } finally {
      await proxied.close();
    }
  });

  it('finds what the rules are for: a relative link and a foreign self link are reported', () => {
    const url = 'http://x.test/api/changes/feed';
    const feed = (links: string) =>
      `<feed xmlns="http://www.w3.org/2005/Atom"><id>tag:a,2026:f</id><title>t</title>` +
      `<updated>2026-11-20T00:00:00.000Z</updated><author><name>a</name></author>${links}</feed>`;
    expect(problems(feed(`<link rel="self" href="${url}"/>`), url)).toEqual([]);
    expect(problems(feed('<link rel="self" href="/api/changes/feed"/>'), url)).toHaveLength(2);
  });
});
