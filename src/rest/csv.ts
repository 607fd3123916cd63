// GET /api/products/export (contract §6): every matching row as CSV for spreadsheets — `;` between
// fields, a decimal comma, UTF-8 with a BOM, CRLF — written row by row as the pages arrive, so a large
// market is never held in memory as one file.
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

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

/** The CSV of every item the pages yield, as a byte stream that waits for its reader. */
export function csvStream(pages: AsyncIterable<ExportItem[]>): ReadableStream<Uint8Array> {
  const stringifier = stringify({
    delimiter: ';',
    record_delimiter: 'windows',
    bom: true,
    header: true,
    columns: [...CSV_COLUMNS],
  });
  void (async () => {
    try {
      for await (const page of pages) {
        for (const item of page) {
          if (!stringifier.write(csvRow(item))) await once(stringifier, 'drain');
        }
      }
      stringifier.end();
    } catch (err) {
      stringifier.destroy(err as Error);
    }
  })();
  return Readable.toWeb(stringifier) as unknown as ReadableStream<Uint8Array>;
}
