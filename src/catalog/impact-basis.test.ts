import { describe, expect, it } from 'vitest';
import { Decimal } from '../domain/decimal.js';
import { impactBasisOf, type BasisPlan, type ImpactOffer } from './impact-basis.js';

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 6));

const plan = (id: number, d: number, rate: string): BasisPlan => ({
  id,
  validFrom: day(d),
  tierMode: 'whole',
  tiers: [{ from: new Decimal(0), to: null, rate: new Decimal(rate) }],
  promotion: null,
});

// Newest first, as an offer's plan history lists them.
const history = [plan(7, 20, '2.10'), plan(5, 12, '2.40'), plan(2, 3, '2.00')];

const deposit: ImpactOffer = {
  type: 'deposit',
  termMonths: 24,
  payout: 'ANNUALLY',
  interestCompounds: false,
  annualFee: new Decimal('0.00'),
  withholding: { kind: 'reducible', rate: new Decimal('26.00'), reducedRate: new Decimal('12.50') },
};
const flexible: ImpactOffer = { ...deposit, type: 'flexible', termMonths: null, payout: 'MONTHLY' };

const rateOf = (terms: { tiers: readonly { rate: Decimal }[] }) => terms.tiers[0]!.rate.toFixed(2);

describe('impactBasisOf', () => {
  it('pairs the plan that starts at the event with the one it replaced, whatever their place in the history', () => {
    const down = impactBasisOf({ kind: 'rate_down', offerId: 'd', at: day(20) }, history, deposit)!;
    expect([rateOf(down.before), rateOf(down.after)]).toEqual(['2.40', '2.10']);
    const up = impactBasisOf({ kind: 'rate_up', offerId: 'd', at: day(12) }, history, deposit)!;
    expect([rateOf(up.before), rateOf(up.after)]).toEqual(['2.00', '2.40']);
    expect(up.key).toBe('2>5|deposit:24|ANNUALLY|false|0|12.5');
  });

  it("calculates both plans with the offer's other terms: its term for deposits, the horizon otherwise", () => {
    const onDeposit = impactBasisOf({ kind: 'promotion_start', offerId: 'd', at: day(20) }, history, deposit)!;
    expect(onDeposit.termMonths).toBe(24);
    expect(onDeposit.after).toMatchObject({ payout: 'ANNUALLY', interestCompounds: false });
    expect(onDeposit.after.withholdingRate.toFixed(2)).toBe('12.50'); // reducible: the reduced rate
    expect(impactBasisOf({ kind: 'rate_up', offerId: 'f', at: day(20) }, history, flexible)!.termMonths).toBeNull();
  });

  it.each([
    ['an event that changes no rate', { kind: 'new_offer' as const, offerId: 'd', at: day(20) }],
    ['an institution-level event', { kind: 'rate_up' as const, offerId: null, at: day(20) }],
    ['a time at which no plan started', { kind: 'rate_up' as const, offerId: 'd', at: day(15) }],
    ['the first plan, which replaced none', { kind: 'rate_up' as const, offerId: 'd', at: day(3) }],
    ['a time before every plan', { kind: 'rate_up' as const, offerId: 'd', at: day(1) }],
  ])('has none for %s', (_case, event) => {
    expect(impactBasisOf(event, history, deposit)).toBeNull();
  });
});
