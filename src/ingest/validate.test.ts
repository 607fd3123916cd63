import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseSnapshot, clone } from '../../test/support/snapshots.js';
import { unstorable } from './snapshot.js';
import { firstInvalidUtf8, parseJsonBytes, validateSnapshot } from './validate.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('snapshot bytes', () => {
  // Valid text with, now and then, a byte or a few that may break it: where text goes wrong in practice.
  const text = fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => [...Buffer.from(s)]) },
        { weight: 1, arbitrary: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }) },
      ),
      { maxLength: 12 },
    )
    .map((parts) => Uint8Array.from(parts.flat()));

  it('finds where the first sequence that is not UTF-8 starts: the longest valid prefix ends there', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.uint8Array({ maxLength: 16 })), (input) => {
        let longestValid = 0;
        for (let end = 0; end <= input.length; end++) if (isUtf8(input.subarray(0, end))) longestValid = end;
        expect(firstInvalidUtf8(input)).toBe(isUtf8(input) ? -1 : longestValid);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['a Latin-1 é', bytes(0x22, 0x63, 0x61, 0x66, 0xe9, 0x22), 4],
    ['an overlong slash', bytes(0x41, 0xc0, 0xaf), 1],
    ['an encoded surrogate', bytes(0xed, 0xa0, 0x80), 0],
    ['beyond U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ['a sequence cut short at the end', bytes(0x41, 0x42, 0xe2, 0x82), 2],
    ['a lone continuation byte', bytes(0x80), 0],
  ])('refuses %s, naming the byte offset', (_what, input, offset) => {
    expect(firstInvalidUtf8(input)).toBe(offset);
    expect(() => parseJsonBytes(input)).toThrow(`invalid UTF-8 at byte offset ${offset}`);
  });

  it('names the line too, and reads valid UTF-8 with or without a byte order mark', () => {
    const json = Buffer.from('{\n  "name": "Caf\u00e9 \u20ac \ud83d\udcb6",\n  "x": "?"\n}');
    expect(parseJsonBytes(json)).toEqual({ name: 'Caf\u00e9 \u20ac \ud83d\udcb6', x: '?' });
    expect(parseJsonBytes(Buffer.concat([bytes(0xef, 0xbb, 0xbf), json]))).toEqual(parseJsonBytes(json));
    const latin1 = Buffer.from(json);
    latin1[latin1.indexOf('?')] = 0xe9;
    expect(() => parseJsonBytes(latin1)).toThrow(
      `invalid UTF-8 at byte offset ${latin1.indexOf(0xe9)} (line 3), where the bytes are 0xe9 0x22 0x0a 0x7d`,
    );
  });
});

describe('strings the database cannot store', () => {
  it.each([
    ['plain text', 'Zeeland Spaarbank', null],
    ['a character beyond U+FFFF', 'Spaar \ud83d\udcb6', null],
    ['a NUL', 'Zeeland\u0000Bank', 'contains a NUL character (U+0000) at position 7'],
    ['a lone high surrogate', 'ab\ud83d', 'contains half of a surrogate pair (\\uD83D) at position 2'],
    ['a lone low surrogate', '\udcb6ab', 'contains half of a surrogate pair (\\uDCB6) at position 0'],
  ])('%s', (_what, value, problem) => {
    if (problem === null) expect(unstorable(value)).toBeNull();
    else expect(unstorable(value)).toContain(problem);
  });

  it('are refused in validation, each with its JSON path, together with the other problems', () => {
    const s = clone(baseSnapshot()) as unknown as Record<string, any>;
    s.institutions[0].name = 'Zeeland\u0000Spaarbank';
    s.offers[1].platform = 'x\u0000';
    s.offers[1].sourceUrl = 'https://example.org/\u0000';
    s.sources[0].error = 'timeout\ud800';
    s.offers[0].minAmount = '-1';
    const result = validateSnapshot(s);
    expect(result.ok ? [] : result.problems).toEqual(
      expect.arrayContaining([
        { path: '$.offers[0].minAmount', message: expect.stringMatching(/non-negative/) },
        { path: '$.institutions[0].name', message: expect.stringMatching(/NUL character/) },
        { path: '$.offers[1].platform', message: expect.stringMatching(/NUL character/) },
        { path: '$.offers[1].sourceUrl', message: expect.stringMatching(/NUL character/) },
        { path: '$.sources[0].error', message: expect.stringMatching(/surrogate/) },
      ]),
    );
  });
});

describe('rates', () => {
  it.each(['-0', '-0.0', '-0.00'])('reads %s as zero, without its sign', (negativeZero) => {
    const s = clone(baseSnapshot());
    s.offers[0]!.plan.headlineRate = negativeZero;
    s.offers[0]!.plan.tiers[0]!.rate = negativeZero;
    s.offers[0]!.withholding = { kind: 'applicable', rate: negativeZero, reducedRate: null };
    s.offers[0]!.plan.promotion = { kind: 'bonus', rate: negativeZero, months: 3, maxBalance: null };
    const result = validateSnapshot(s);
    expect(result.ok).toBe(true);
    const offer = result.ok ? result.snapshot.offers[0]! : undefined;
    const zero = negativeZero.slice(1);
    expect([offer?.plan.headlineRate, offer?.plan.tiers[0]!.rate, offer?.withholding.rate]).toEqual([zero, zero, zero]);
    expect(offer?.plan.promotion?.rate).toBe(zero);
  });

  it('keeps other negative rates as they are', () => {
    const s = clone(baseSnapshot());
    s.offers[0]!.plan.tiers[0]!.rate = '-0.05';
    const result = validateSnapshot(s);
    expect(result.ok && result.snapshot.offers[0]!.plan.tiers[0]!.rate).toBe('-0.05');
  });
});
