// Change events as an Atom 1.0 document (RFC 4287), for feed readers. Links are absolute: readers and
// validators resolve a relative link against xml:base or the document's URI, which many readers do not
// keep (they store the entries, not where they came from), so the feed names where the service is (the
// configured public URL, else the origin the request named). Ids are tag: URIs (RFC 4151) that do not
// depend on the host, so a reader that moves to another address does not see every entry again.
export interface AtomImpact {
  amount: string;
  returnPerYearBefore: string;
  returnPerYearAfter: string;
  delta: string;
}

/** An item of GET /api/changes (REST spelling). */
export interface AtomChange {
  id: string;
  kind: string;
  at: string;
  offerId: string | null;
  brandId: string | null;
  institutionId: string | null;
  summary: string;
  impact: AtomImpact | null;
}

export interface AtomFeed {
  /** Where the service is, as links start: scheme, host and any path prefix, without a trailing slash. */
  base: string;
  /** The filters in canonical form and REST spelling (the same filters, the same feed id and self link). */
  query: string;
  /** When the data last changed: the feed's updated when it has no entries. */
  generatedAt: Date;
  items: readonly AtomChange[];
  version: string;
  /** The ledger's head at the feed's data version (docs/ledger.md): a reader keeps it to check the past later. */
  head?: { version: number; chainHash: string; observedAt: string } | null;
}

/** The tag: authority: the service's name, not a host name (see the file comment). */
const TAG = 'tag:savings-rate-api,2026';

const KIND_LABELS: Record<string, string> = {
  rate_up: 'Rate up',
  rate_down: 'Rate down',
  promotion_start: 'Promotion started',
  promotion_end: 'Promotion ended',
  new_offer: 'New offer',
  removed_offer: 'Offer removed',
  dgs_change: 'Deposit guarantee changed',
};

// Characters XML 1.0 cannot carry at all (controls, lone surrogates, U+FFFE/F) are dropped; the rest escaped.
// The control characters are what it removes (a RegExp from strings, one alternative a line).
const NOT_XML = new RegExp(
  [
    '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]',
    '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])',
    '(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  ].join('|'),
  'g',
);
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const xml = (text: string): string => text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const signed = (delta: string) => (delta.startsWith('-') ? delta : `+${delta}`);

function contentOf(item: AtomChange): string {
  const lines = [`${KIND_LABELS[item.kind] ?? item.kind}: ${item.summary}.`];
  if (item.impact) {
    const i = item.impact;
    lines.push(
      `For ${i.amount} EUR: return per year ${i.returnPerYearBefore} → ${i.returnPerYearAfter} EUR (` +
        `${signed(i.delta)}).`,
    );
  }
  return lines.join('\n');
}

function entry(base: string, item: AtomChange): string {
  // An offer's event links to the offer; an institution's to the institutions.
  const href = base + (item.offerId ? `/api/products/${encodeURIComponent(item.offerId)}` : '/api/institutions');
  return `  <entry>
    <id>${TAG}:change/${xml(item.id)}</id>
    <title type="text">${xml(item.summary)}</title>
    <updated>${xml(item.at)}</updated>
    <published>${xml(item.at)}</published>
    <link rel="alternate" type="application/json" href="${xml(href)}"/>
    <category term="${xml(item.kind)}" label="${xml(KIND_LABELS[item.kind] ?? item.kind)}"/>
    <content type="text">${xml(contentOf(item))}</content>
  </entry>
`;
}

/** Our own element for the ledger's head (Atom allows foreign markup at feed level, RFC 4287 §6). */
const LEDGER_NS = 'https://savings-rate-api.example/ns/ledger';

function headElement(base: string, head: AtomFeed['head']): string {
  if (!head) return '';
  const attributes =
    `version="${head.version}" chainHash="${xml(head.chainHash)}" ` + `observedAt="${xml(head.observedAt)}"`;
  return `  <ledger:head ${attributes} href="${xml(`${base}/api/ledger`)}"/>\n`;
}

export function renderAtom({ base, query, generatedAt, items, version, head }: AtomFeed): string {
  const updated = items[0]?.at ?? generatedAt.toISOString();
  const suffix = query ? `?${query}` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:ledger="${LEDGER_NS}">
  <id>${TAG}:changes${xml(suffix)}</id>
  <title type="text">Savings market: changes</title>
  <subtitle type="text">Rate changes, promotions, new and removed offers and deposit guarantee changes, ` +
    `newest first.</subtitle>
  <updated>${xml(updated)}</updated>
  <link rel="self" type="application/atom+xml" href="${xml(`${base}/api/changes/feed${suffix}`)}"/>
  <link rel="alternate" type="application/json" href="${xml(`${base}/api/changes${suffix}`)}"/>
  <author><name>Savings-rate comparison API</name></author>
  <generator version="${xml(version)}">savings-rate-api</generator>
${headElement(base, head)}${items.map((item) => entry(base, item)).join('')}</feed>
`
  );
}
