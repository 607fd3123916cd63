// Numbers are shown in the browser's locale, but they stay the API's decimal strings: Intl.NumberFormat
// formats a string exactly (no conversion to a float), so "1234.565" can never be shown as 1,234.56.
// Percentages are shifted by two places as text for the same reason ("2.35" → "0.0235" → "2.35 %").

type Decimal = `${number}`;

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.DisplayNames>();
function memo<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.DisplayNames>(key: string, make: () => T): T {
  let value = cache.get(key) as T | undefined;
  if (!value) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

/** The browser's preferred locale (undefined in environments without navigator: the runtime's default). */
export const browserLocale = (): string | undefined =>
  typeof navigator === 'undefined' ? undefined : (navigator.languages?.[0] ?? navigator.language);

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** "2.35" → "0.0235", exactly. */
export function percentToFraction(text: string): string {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const padded = whole.padStart(3, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -2)}.${padded.slice(-2)}${fraction}`;
}

/** Orders two of the API's non-negative decimal strings exactly, as text ("10.00" > "9.50"). */
export function compareDecimalText(a: string, b: string): number {
  const [aWhole = '', aFraction = ''] = a.replace(/^0+(?=\d)/, '').split('.');
  const [bWhole = '', bFraction = ''] = b.replace(/^0+(?=\d)/, '').split('.');
  if (aWhole.length !== bWhole.length) return aWhole.length - bWhole.length;
  const width = Math.max(aFraction.length, bFraction.length);
  const x = aWhole + aFraction.padEnd(width, '0');
  const y = bWhole + bFraction.padEnd(width, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

export function formatMoney(value: string, locale = browserLocale()): string {
  if (!DECIMAL_TEXT.test(value)) return value;
  return memo(`money:${locale}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' })).format(
    value as Decimal,
  );
}

/** Money without cents when there are none: limits and minimum amounts ("€100,000"). */
export function formatMoneyShort(value: string, locale = browserLocale()): string {
  if (!DECIMAL_TEXT.test(value)) return value;
  return memo(
    `money-short:${locale}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR', trailingZeroDisplay: 'stripIfInteger' }),
  ).format(value as Decimal);
}

/** A rate in percent per year, as the API gives it ("2.35"), in the locale's percent format. */
export function formatRate(value: string, locale = browserLocale()): string {
  if (!DECIMAL_TEXT.test(value)) return value;
  return memo(
    `rate:${locale}`,
    () => new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  ).format(percentToFraction(value) as Decimal);
}

/** A plain decimal ("25000" → "25,000"), as many decimals as it has. */
export function formatDecimal(value: string, locale = browserLocale()): string {
  if (!DECIMAL_TEXT.test(value)) return value;
  return memo(`decimal:${locale}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 20 })).format(
    value as Decimal,
  );
}

export function formatCount(value: number, locale = browserLocale()): string {
  return memo(`count:${locale}`, () => new Intl.NumberFormat(locale)).format(value);
}

/** An instant ("2026-11-22T08:00:00.000Z") as a date in the browser's time zone. */
export function formatDate(iso: string, locale = browserLocale()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return memo(`date:${locale}`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })).format(date);
}

export function formatDateTime(iso: string, locale = browserLocale()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return memo(
    `datetime:${locale}`,
    () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
  ).format(date);
}

/** A calendar day ("2026-11-22"): the day itself, whatever the browser's time zone. */
export function formatDay(day: string, locale = browserLocale()): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return memo(`day:${locale}`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' })).format(
    date,
  );
}

/** The day the market is shown as of, as the page shows days; an instant (from a hand-made link) as a time. */
export const formatAsOf = (asOf: string, locale = browserLocale()): string =>
  /^\d{4}-\d{2}-\d{2}$/.test(asOf) ? formatDay(asOf, locale) : formatDateTime(asOf, locale);

/** "NL" → "Netherlands" in the browser's language (the code itself if unknown). */
export function countryName(code: string, locale = browserLocale()): string {
  try {
    return (
      memo(`region:${locale}`, () => new Intl.DisplayNames(locale ? [locale] : undefined, { type: 'region' })).of(
        code,
      ) ?? code
    );
  } catch {
    return code;
  }
}

/**
 * What the saver typed in the amount field, as the API's decimal text: spaces, the euro sign and
 * grouping separators go, the decimal mark becomes ".". Nothing is checked here: whatever this does
 * not turn into a number is sent as typed, and the API's own message is shown.
 * A lone "." or "," followed by exactly three digits is grouping when it is the locale's grouping
 * separator ("25.000" in Dutch, "25,000" in English), else a decimal mark ("12,5", "1234.56").
 */
export function amountFromInput(text: string, locale = browserLocale()): string {
  const compact = text.trim().replace(/[\s\u00a0\u202f€']/g, '');
  const marks = compact.match(/[.,]/g) ?? [];
  if (marks.length === 0) return compact;
  const kinds = new Set(marks);
  if (kinds.size === 2) {
    const decimal = compact[Math.max(compact.lastIndexOf('.'), compact.lastIndexOf(','))]!;
    const group = decimal === '.' ? ',' : '.';
    return compact.split(group).join('').replace(decimal, '.');
  }
  const mark = marks[0]!;
  const group = memo(`decimal:${locale}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 20 }))
    .formatToParts(10000)
    .find((part) => part.type === 'group')?.value;
  const groups = compact.split(mark);
  const grouping = groups.length > 2 || (mark === group && groups.length === 2 && /^\d{3}$/.test(groups[1]!));
  return grouping && groups.slice(1).every((g) => /^\d{3}$/.test(g)) ? groups.join('') : groups.join('.');
}

/** The amount as the field shows it: grouped in the locale ("25000" → "25,000"); anything else as it is. */
export function amountForInput(value: string, locale = browserLocale()): string {
  return /^\d+(\.\d{1,2})?$/.test(value) ? formatDecimal(value, locale) : value;
}
