import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from './json-bytes.js';

const same = (value: unknown): void => {
  expect(Buffer.from(jsonBytes(value)).equals(Buffer.from(JSON.stringify(value) ?? '', 'utf8'))).toBe(true);
};

/** Strings with characters above U+00FF, below it, escapes and surrogates. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('Banka Slovenije č', 'Šiaulių bankas', 'Crédit', 'a"b\\c\n', '\u2028', '\ud83d\ude00', '\ud800'),
);
const leaf = fc.oneof(
  text,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date(),
);
const row = fc.dictionary(
  fc.oneof(text, fc.constantFrom('items', 'toJSON', '__proto__')),
  fc.oneof(leaf, fc.array(leaf)),
);

describe('jsonBytes', () => {
  it('property: the bytes of Buffer.from(JSON.stringify(value)), for objects whose arrays are long or short', () => {
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(leaf, fc.array(fc.oneof(row, leaf), { maxLength: 30 }), row)), (value) =>
        same(value),
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    [
      'a page of rows with a two-byte name',
      { items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: i === 3 ? 'č' : 'a' })), total: 20 },
    ],
    [
      'holes, undefined and functions in an array',
      { items: [1, undefined, () => 1, null, 2, 3, 4, 5, 6, Symbol('x')] },
    ],
    ['an array with toJSON', { items: Object.assign([1, 2, 3, 4, 5, 6, 7, 8], { toJSON: () => 'x' }) }],
    ['a top-level array', Array.from({ length: 12 }, (_, i) => ({ i }))],
    ['a string', 'č'],
    ['an object with toJSON', { toJSON: () => ({ a: 1 }) }],
    [
      'values whose toJSON gives nothing (left out of an object, null in an array)',
      {
        gone: { toJSON: () => undefined },
        items: Array.from({ length: 9 }, (_, i) => (i % 2 ? { toJSON: () => undefined } : i)),
        kept: 1,
      },
    ],
    ['an empty object', {}],
  ])('is the same for %s', (_name, value) => same(value));
});
