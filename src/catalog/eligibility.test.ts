// Eligibility compares numbers first and Decimals only where the numbers are equal: the answer must be
// the Decimals' own, also where two amounts differ past what a number holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimals, Decimal } from '../domain/decimal.js';
import { buildCatalog } from './__tests__/catalog-fixture.js';
import { amountRangeOf, ineligibility } from './pipeline.js';
import type { CatalogOffer } from './types.js';

const reference = (offer: CatalogOffer, amount: Decimal) =>
  compareDecimals(amount, offer.minAmount) < 0
    ? 'below_minimum'
    : offer.maxAmount !== null && compareDecimals(amount, offer.maxAmount) > 0
      ? 'above_maximum'
      : null;

const [base] = buildCatalog([{ id: 'alfa' }], [{ id: 'alfa-flex', brand: 'alfa' }]).offers;

/** Amounts near a few limits: in cents, and off them by less than a number can tell apart. */
const amount = fc
  .tuple(
    fc.constantFrom('1', '500', '1000', '100000', '123456.78', '999999999.99'),
    fc.constantFrom('', '.01', '.000000000000000001', '.00000000000000000001', '.5'),
    fc.constantFrom(-1, 0, 1),
  )
  .map(([whole, part, sign]) => {
    const x = new Decimal(whole).plus(part === '' ? 0 : `0${part}`);
    return sign === 0 ? x : sign > 0 ? x.plus('1e-19') : x.minus('1e-19');
  })
  .filter((x) => x.gt(0));

describe('ineligibility', () => {
  it('gives the Decimals’ answer for every amount and limits, ties past a number’s precision included', () => {
    fc.assert(
      fc.property(amount, amount, fc.option(amount), (a, min, max) => {
        const offer = { ...base!, minAmount: min, maxAmount: max, amountRange: amountRangeOf(min, max) };
        expect(ineligibility(offer, a)).toBe(reference(offer, a));
      }),
      { numRuns: 3000 },
    );
  });
});
