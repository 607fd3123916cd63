// How the API's values appear: each number in a <data> element that keeps the API's exact string
// (value="1234.56") beside its locale formatting, so tests and machines can read the original.
import type { ComponentChildren } from 'preact';
import type { OfferRowFragment } from '../gql/graphql.js';
import { compareDecimalText, countryName, formatMoney, formatMoneyShort, formatRate } from '../format.js';
import { CHANNELS, label, months, TYPES, WITHHOLDING } from '../labels.js';

export const Money = ({ value }: { value: string }) => <data value={value}>{formatMoney(value)}</data>;
export const Rate = ({ value }: { value: string }) => <data value={value}>{formatRate(value)}</data>;

type Offer = OfferRowFragment;

/** The base rate a promotion adds to or stands in for: the offer's best band, as its headline counts it. */
function baseRate(offer: Offer): string {
  let best: string | null = null;
  for (const tier of offer.tiers) if (best === null || compareDecimalText(tier.rate, best) > 0) best = tier.rate;
  return best ?? offer.headlineRate;
}

/**
 * The headline rate, and with a promotion what it is made of, each number labelled: a bonus as
 * "base + bonus = total" (the headline already holds the bonus: "3.35 %" over "+1.50 % bonus" read as
 * 4.85 %), a promotional rate with the base it gives way to.
 */
export function HeadlineRate({ offer }: { offer: Offer }) {
  const p = offer.promotion;
  const headline = (
    <data class="headline" value={offer.headlineRate}>
      {formatRate(offer.headlineRate)}
    </data>
  );
  if (!p) return headline;
  const base = baseRate(offer);
  const period = `first ${months(p.months)}`;
  const line = (op: string, value: ComponentChildren, what: string, cls?: string) => (
    <span class={cls ? `line ${cls}` : 'line'}>
      <span class="op" aria-hidden={op ? undefined : 'true'}>
        {op}
      </span>
      {value}
      <span class="what">{what}</span>
    </span>
  );
  const note = (
    <span class="promo">
      {p.kind === 'BONUS' ? 'Bonus' : 'Promotional rate'} for the {period}
      {p.maxBalance ? <> on up to {formatMoneyShort(p.maxBalance)}</> : null}
      {offer.calc.promotionApplied ? null : <> (not counted here)</>}
    </span>
  );
  const rate = (value: string, cls: string) => (
    <data class={cls} value={value}>
      {formatRate(value)}
    </data>
  );
  if (p.kind === 'BONUS')
    return (
      <span class="rates">
        {line('', rate(base, 'base'), 'base')}
        {line('+', rate(p.rate, 'bonus'), 'bonus')}
        {line('=', headline, 'total', 'total sum')}
        {note}
      </span>
    );
  // A promotional rate replaces the base; the headline is the higher of the two.
  return (
    <span class="rates">
      {p.rate === offer.headlineRate ? null : line('', headline, 'headline', 'total')}
      {line(
        '',
        rate(p.rate, p.rate === offer.headlineRate ? 'headline promotional' : 'promotional'),
        'promotion',
        'total',
      )}
      {line('', rate(base, 'base'), 'after that')}
      {note}
    </span>
  );
}

export function WithholdingNote({ offer }: { offer: Offer }) {
  const w = offer.withholding;
  if (w.kind === 'NONE') return <span>None</span>;
  return (
    <span>
      {w.rate ? <Rate value={w.rate} /> : label(WITHHOLDING, w.kind.toLowerCase())}
      {w.kind === 'REDUCIBLE' && w.reducedRate ? (
        <span class="sub"> reducible to {formatRate(w.reducedRate)}</span>
      ) : null}
      <span class="sub"> ({formatMoney(offer.calc.withholdingTax)})</span>
    </span>
  );
}

/** The deposit guarantee for this amount: covered in full, partly (how much is not), or shared with other brands. */
export function DgsBadge({ dgs }: { dgs: Offer['dgs'] }) {
  const covered = dgs.verified && dgs.fullyCovered;
  return (
    <span class="dgs">
      {covered ? (
        <span class="badge ok">Fully covered</span>
      ) : dgs.verified ? (
        <span class="badge warn">
          Partly covered: <Money value={dgs.uncovered} /> not covered
        </span>
      ) : (
        <span class="badge bad">No verified guarantee</span>
      )}
      <span class="sub" title={dgs.scheme}>
        {dgs.country} guarantee up to {formatMoneyShort(dgs.limit)}
      </span>
      {dgs.sharedWith.length > 0 ? <span class="badge info">Shared licence: {dgs.sharedWith.join(', ')}</span> : null}
    </span>
  );
}

export function OfferMeta({ offer }: { offer: Offer }) {
  const kind =
    offer.type === 'DEPOSIT' && offer.termMonths != null
      ? `Deposit, ${months(offer.termMonths)}`
      : offer.type === 'NOTICE' && offer.noticeDays != null
        ? `Notice, ${offer.noticeDays} days`
        : label(TYPES, offer.type.toLowerCase());
  const channel = offer.platform ? `via ${offer.platform}` : label(CHANNELS, offer.channel.toLowerCase());
  return (
    <span class="meta">
      {kind} · {countryName(offer.brand.country)} · {channel}
    </span>
  );
}
