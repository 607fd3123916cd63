// A JSON answer as bytes, the same bytes as Buffer.from(JSON.stringify(value)), made faster for the
// answers that matter: a list's page of rows. V8 serialises and encodes a string that holds a character
// above U+00FF (č, ū, ľ, ň in a bank's name) on slow paths, and one such name in a page of 50 rows made
// the whole page's JSON.stringify and UTF-8 encoding 5-10× slower (≈1 ms of a 74 KB page against
// ≈0.15 ms). So the top-level object's arrays are serialised an element at a time and every part is
// encoded on its own: a row with such a name takes the slow path alone. src/rest/json-bytes.test.ts holds
// the result to Buffer.from(JSON.stringify(value)) for random values.

/** Arrays shorter than this are serialised whole: splitting them gains nothing. */
const SPLIT_FROM = 8;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** Buffers over ArrayBuffers of their own (never shared memory), as a Response body takes them. */
type Bytes = Uint8Array<ArrayBuffer>;

export function jsonBytes(value: unknown): Bytes {
  if (!isPlainObject(value)) return Buffer.from(JSON.stringify(value) ?? '', 'utf8') as Bytes;
  const parts: Buffer[] = [];
  let text = '{';
  for (const key of Object.keys(value)) {
    const v = value[key];
    const split =
      Array.isArray(v) && v.length >= SPLIT_FROM && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
    // What JSON.stringify gives no text (undefined, a function, a symbol) it leaves out of an object…
    const json = split ? '' : JSON.stringify(v);
    if (json === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
    if (!split) {
      text += json;
      continue;
    }
    text += '[';
    for (let i = 0; i < v.length; i++) {
      parts.push(Buffer.from(i === 0 ? text : `${text},`, 'utf8'));
      text = '';
      // …and writes as null in an array.
      parts.push(Buffer.from(JSON.stringify(v[i]) ?? 'null', 'utf8'));
    }
    text += ']';
  }
  parts.push(Buffer.from(`${text}}`, 'utf8'));
  return (parts.length === 1 ? parts[0]! : Buffer.concat(parts)) as Bytes;
}
