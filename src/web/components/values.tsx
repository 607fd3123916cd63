// How the API's values appear: each number in a <data> element that keeps the API's exact string
// (value="1234.56") beside its locale formatting, so tests and machines can read the original.
import type { OfferRowFragment } from '../gql/graphql.js';
import { countryName, formatMoney, formatMoneyShort, formatRate } from '../format.js';
import { CHANNELS, label, months, TYPES, WITHHOLDING } from '../labels.js';

export const Money = ({ value }: { value: string }) => <data value={value}>{formatMoney(value)}</data>;
export const Rate = ({ value }: { value: string }) => <data value={value}>{formatRate(value)}</data>;

type Offer = OfferRowFragment;

export function PromotionNote({ offer }: { offer: Offer }) {
  const p = offer.promotion;
  if (!p) return null;
  const what = p.kind === 'BONUS' ? <>+{formatRate(p.rate)} bonus</> : <>{formatRate(p.rate)} promotional rate</>;
  return (
    <span class="promo">
      {what} for the first {months(p.months)}
      {p.maxBalance ? <> on up to {formatMoneyShort(p.maxBalance)}</> : null}
      {offer.calc.promotionApplied ? null : <> (not counted)</>}
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
