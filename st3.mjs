import { createCalculator } from '/work/main/dist/domain/fast-calc.js';
import { Decimal } from '/work/main/dist/domain/decimal.js';
const calc = createCalculator();
const terms = { tierMode: 'whole', tiers: [{ from: new Decimal(0), to: null, rate: new Decimal('2.5') }], promotion: null, payout: 'MONTHLY', interestCompounds: true, annualFee: new Decimal(0), withholdingRate: new Decimal(0) };
const input = (a) => ({ amount: new Decimal(a), months: 12, promotions: 'include', terms });
calc.evaluateYields('k', input('25000'));
