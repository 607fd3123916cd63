// Hand-made snapshots: a tiny market that tests change one field at a time.
import type { Snapshot, SnapshotOffer } from '../../src/ingest/snapshot.js';

export function baseSnapshot(observedAt = '2026-11-01T06:00:00.000Z'): Snapshot {
  return {
    observedAt,
    complete: true,
    sources: [
      {
        id: 'src-zeeland',
        name: 'Zeeland Spaarbank website',
        kind: 'official',
        url: 'https://example.org/rates',
        status: 'ok',
        error: null,
      },
    ],
    institutions: [
      {
        id: 'zeeland-spaarbank',
        name: 'Zeeland Spaarbank N.V.',
        country: 'NL',
        lei: null,
        dgs: {
          scheme: 'DNB DGS',
          country: 'NL',
          limit: '100000.00',
          verified: true,
          source: 'https://example.org/dgs',
          verifiedAt: '2026-10-01T00:00:00.000Z',
        },
      },
    ],
    brands: [
      {
        id: 'zeeland-direct',
        name: 'Zeeland Direct',
        country: 'NL',
        website: 'https://example.org',
        institutionId: 'zeeland-spaarbank',
      },
      {
        id: 'zeeland-online',
        name: 'Zeeland Online',
        country: 'NL',
        website: null,
        institutionId: 'zeeland-spaarbank',
      },
    ],
    offers: [flexOffer(observedAt), depositOffer(observedAt)],
  };
}

export function flexOffer(checkedAt: string): SnapshotOffer {
  return {
    id: 'zeeland-direct-flex',
    brandId: 'zeeland-direct',
    name: 'Direct Sparen',
    type: 'flexible',
    termMonths: null,
    noticeDays: null,
    channel: 'direct',
    platform: null,
    payout: 'MONTHLY',
    minAmount: '1.00',
    maxAmount: '500000.00',
    openToNewCustomers: true,
    currentAccountRequired: false,
    annualFee: '0.00',
    earlyWithdrawal: true,
    interestCompounds: true,
    withholding: { kind: 'none', rate: null, reducedRate: null },
    sourceId: 'src-zeeland',
    sourceUrl: 'https://example.org/direct-sparen',
    checkedAt,
    official: true,
    confirmed: false,
    plan: {
      headlineRate: '2.35',
      rateType: 'variable',
      tierMode: 'whole',
      tiers: [
        { from: '0.00', to: '25000.00', rate: '2.10' },
        { from: '25000.00', to: null, rate: '2.35' },
      ],
      promotion: null,
    },
  };
}

export function depositOffer(checkedAt: string): SnapshotOffer {
  return {
    ...flexOffer(checkedAt),
    id: 'zeeland-online-12m',
    brandId: 'zeeland-online',
    name: 'Termijndeposito 1 jaar',
    type: 'deposit',
    termMonths: 12,
    payout: 'AT_MATURITY',
    earlyWithdrawal: false,
    sourceUrl: null,
    plan: {
      headlineRate: '2.60',
      rateType: 'fixed',
      tierMode: 'whole',
      tiers: [{ from: '0.00', to: null, rate: '2.60' }],
      promotion: null,
    },
  };
}

/** A deep copy to mutate: tests change the next day's snapshot without touching the first. */
export const clone = <T>(value: T): T => structuredClone(value);

/**
 * Sample options that end today with no snapshot from the future: before 06:00 UTC the generated last
 * day would otherwise be observed later than the clock, which the ingest refuses.
 */
export function upToNow(): { end: string; notAfter: string } {
  const now = new Date().toISOString();
  return { end: now.slice(0, 10), notAfter: now };
}
