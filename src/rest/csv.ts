// GET /api/products/export (contract §6): every matching row as CSV for spreadsheets — `;` between
// fields, a decimal comma, UTF-8 with a BOM, CRLF — written page by page as the pages arrive, so a large
// market is never held in memory as one file.
import { stringify } from 'csv-stringify/sync';

/** An offer as the export's GraphQL operation selects it (REST spelling). */
export interface ExportItem {
  id: string;
  name: string;
  type: string;
  brand: { name: string; country: string };
  termMonths: number | null;
  noticeDays: number | null;
  channel: string;
  headlineRate: string;
  minAmount: string;
  maxAmount: string | null;
  payout: string;
  withholding: { kind: string };
  freshness: { checkedAt: string };
  calc: {
    comparableYield: string;
    effectiveRate: string;
    returnPerYear: string;
    grossInterest: string;
    netInterest: string;
    endBalance: string;
  };
  dgs: { country: string; covered: string; uncovered: string };
}

export const EXPORT_SELECTION =
  `id name type brand { name country } termMonths noticeDays channel headlineRate minAmount maxAmount payout
  withholding { kind } freshness { checkedAt }
  calc { comparableYield effectiveRate returnPerYear grossInterest netInterest endBalance } dgs { country ` +
  `covered uncovered }`;

export const CSV_COLUMNS = [
  'id',
  'bank',
  'product',
  'type',
  'termMonths',
  'noticeDays',
  'channel',
  'country',
  'dgsCountry',
  'headlineRate',
  'comparableYield',
  'effectiveRate',
  'returnPerYear',
  'grossInterest',
  'netInterest',
  'endBalance',
  'dgsCovered',
  'dgsUncovered',
  'minAmount',
  'maxAmount',
  'payout',
  'withholding',
  'checkedAt',
] as const;

/** A spreadsheet would run a text cell starting with one of these as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
const text = (value: string) => (FORMULA_START.test(value) ? `'${value}` : value);
const decimal = (value: string | null) => (value === null ? '' : value.replace('.', ','));
const int = (value: number | null) => (value === null ? '' : String(value));

export function csvRow(item: ExportItem): string[] {
  return [
    text(item.id),
    text(item.brand.name),
    text(item.name),
    text(item.type),
    int(item.termMonths),
    int(item.noticeDays),
    text(item.channel),
    text(item.brand.country),
    text(item.dgs.country),
    decimal(item.headlineRate),
    decimal(item.calc.comparableYield),
    decimal(item.calc.effectiveRate),
    decimal(item.calc.returnPerYear),
    decimal(item.calc.grossInterest),
    decimal(item.calc.netInterest),
    decimal(item.calc.endBalance),
    decimal(item.dgs.covered),
    decimal(item.dgs.uncovered),
    decimal(item.minAmount),
    decimal(item.maxAmount),
    text(item.payout),
    text(item.withholding.kind),
    text(item.freshness.checkedAt),
  ];
}

/**
 * The CSV of every item the pages yield, as a byte stream that waits for its reader: up to CHUNK_ROWS rows
 * are made into one chunk each time the reader asks for more (row by row through a stream transform, each
 * row was a chunk of its own, and a fifth of an export's time went to moving them; a whole page at once
 * would hold the loop for its 500 rows).
 */
export function csvStream(pages: AsyncIterable<ExportItem[]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let first = true;
  let rows: readonly ExportItem[] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (rows.length === 0) {
        const next = await iterator.next();
        if (next.done) {
          if (first) controller.enqueue(encoder.encode(csvText([], true)));
          controller.close();
          return;
        }
        rows = next.value;
      }
      controller.enqueue(encoder.encode(csvText(rows.slice(0, CHUNK_ROWS), first)));
      rows = rows.slice(CHUNK_ROWS);
      first = false;
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** Rows per chunk of the export: ≈2 ms of the loop each. */
const CHUNK_ROWS = 100;

/** Rows as CSV text, after the BOM and the header when they are the first. */
function csvText(items: readonly ExportItem[], first: boolean): string {
  return stringify(items.map(csvRow), {
    delimiter: ';',
    record_delimiter: 'windows',
    bom: first,
    header: first,
    columns: [...CSV_COLUMNS],
  });
}
