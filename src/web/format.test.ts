// The page shows the API's decimal strings in the browser's locale without ever making floats of them.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  amountForInput,
  amountFromInput,
  compareDecimalText,
  formatMoney,
  formatRate,
  percentToFraction,
} from './format.js';

describe('compareDecimalText', () => {
  it('orders the API’s non-negative decimals as decimal.js does, without a float', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 }))
      .map(([digits, scale, zeros]) => {
        const text = digits.toString().padStart(scale + 1, '0');
        const value = scale ? `${text.slice(0, -scale)}.${text.slice(-scale)}` : text;
        return '0'.repeat(zeros) + value; // leading zeros and any number of decimals
      });
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        expect(Math.sign(compareDecimalText(a, b))).toBe(new Decimal(a).cmp(b));
      }),
    );
  });

  it.each([
    ['10.00', '9.50', 1],
    ['2.5', '2.50', 0],
    ['0.05', '0.5', -1],
    ['0', '0.00', 0],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareDecimalText(a, b))).toBe(sign);
  });
});

describe('percentToFraction', () => {
  it.each([
    ['2.35', '0.0235'],
    ['0.05', '0.0005'],
    ['12', '0.12'],
    ['100.00', '1.0000'],
    ['-1.50', '-0.0150'],
    ['1234.5', '12.345'],
  ])('shifts %s two places as text: %s', (rate, fraction) => {
    expect(percentToFraction(rate)).toBe(fraction);
  });
});

describe('formatting', () => {
  it.each([
    ['en-US', '1234.56', '€1,234.56'],
    ['nl-NL', '1234.56', '€ 1.234,56'],
    ['de-DE', '1234.56', '1.234,56 €'],
  ])('money in %s', (locale, value, shown) => {
    expect(formatMoney(value, locale).replace(/\u00a0/g, ' ')).toBe(shown);
  });

  it('keeps digits a float would lose', () => {
    expect(formatMoney('90071992547409.93', 'en-US')).toBe('€90,071,992,547,409.93');
    expect(formatRate('0.07', 'en-US')).toBe('0.07%');
  });

  it.each([
    ['en-US', '2.35', '2.35%'],
    ['nl-NL', '2.35', '2,35%'],
    ['de-DE', '-0.50', '-0,50 %'],
  ])('rates in %s', (locale, value, shown) => {
    expect(formatRate(value, locale).replace(/[\u00a0\u202f]/g, ' ')).toBe(shown);
  });

  it('leaves what is not a decimal as it is', () => {
    expect(formatMoney('n/a', 'en-US')).toBe('n/a');
  });
});

describe('amountFromInput', () => {
  it.each([
    ['25000', 'en-US', '25000'],
    ['25,000', 'en-US', '25000'],
    ['25.000', 'nl-NL', '25000'],
    ['1.000.000', 'nl-NL', '1000000'],
    ['25.000,50', 'nl-NL', '25000.50'],
    ['25,000.50', 'nl-NL', '25000.50'],
    ['12,5', 'en-US', '12.5'],
    ['1234.56', 'nl-NL', '1234.56'],
    ['€ 5 000', 'fr-FR', '5000'],
    [' 7500 ', 'en-US', '7500'],
  ])('reads %s (%s) as %s', (typed, locale, amount) => {
    expect(amountFromInput(typed, locale)).toBe(amount);
  });

  it.each([
    ['abc', 'abc'],
    ['-5', '-5'],
    ['25.000', '25.000'], // en-US: a decimal point; the API says how many decimals it takes
    ['', ''],
  ])('passes %s on for the API to judge', (typed, sent) => {
    expect(amountFromInput(typed, 'en-US')).toBe(sent);
  });

  it('shows an amount the way the saver would type it, and reads it back', () => {
    for (const locale of ['en-US', 'nl-NL', 'de-DE', 'fr-FR']) {
      expect(amountFromInput(amountForInput('25000.5', locale), locale)).toBe('25000.5');
      expect(amountFromInput(amountForInput('1000000', locale), locale)).toBe('1000000');
    }
  });
});
