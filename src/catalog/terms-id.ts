// The calculation's identity: terms of equal content get one id and one object for the life of the
// process, whoever reads them (a catalogue's offers, this one's and the next's; the plans before and
// after a rate event). The calculator keeps its pieces by that id, recognises a key's terms by identity,
// and hashes a short key, not 200 characters, for each offer; every reader of the same terms shares them.
import type { CalcTerms } from '../domain/types.js';

/** Terms of one content: their id, and the first object seen with it. */
export interface InternedTerms {
  id: number;
  terms: CalcTerms;
}

/** Every distinct set of calculation terms the process has seen. */
const TERMS = new Map<string, InternedTerms>();

/** Everything `calculate` reads of the terms, nothing else. */
export function termsKeyOf(t: CalcTerms): string {
  const tiers = t.tiers.map((x) => `${x.from.toString()}-${x.to?.toString() ?? ''}:${x.rate.toString()}`).join(',');
  const promo = t.promotion
    ? `${t.promotion.kind}:${t.promotion.rate.toString()}:${t.promotion.months}:` +
      `${t.promotion.maxBalance?.toString() ?? ''}`
    : '';
  return (
    `${t.tierMode}|${tiers}|${promo}|${t.payout}|${t.interestCompounds ? 1 : 0}|${t.annualFee.toString()}|` +
    `${t.withholdingRate.toString()}`
  );
}

/** The id of terms of this content, and the first object seen with it (its readers may share that one). */
export function internTerms(terms: CalcTerms, key = termsKeyOf(terms)): InternedTerms {
  let interned = TERMS.get(key);
  if (!interned) TERMS.set(key, (interned = { id: TERMS.size + 1, terms }));
  return interned;
}
