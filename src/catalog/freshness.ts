// How old the data is, and whether that is too old: one rule for every place that says so — the
// meta summary's `stale`, health's `checks.data` and its `dataAgeSeconds` (contract §11.2). Age is
// counted in whole seconds since the newest applied snapshot was observed; data older than the
// configured maximum is stale, and no data at all is as stale as can be.
import { DAY_MS } from '../domain/days.js';

/** Whole seconds from `observedAt` to `now` (never negative); null when there is no data. */
export function dataAgeSeconds(observedAt: Date | null, now: Date): number | null {
  return observedAt === null ? null : Math.max(0, Math.floor((now.getTime() - observedAt.getTime()) / 1000));
}

/** freshness=24h and the meta summary's checked24h: an offer checked at most 24 hours before `now`. */
export function checkedInLast24h(checkedAt: Date, now: Date): boolean {
  return now.getTime() - checkedAt.getTime() <= DAY_MS;
}

export type DataState = 'ok' | 'stale' | 'empty';

export function dataState(observedAt: Date | null, now: Date, maxAgeSeconds: number): DataState {
  const age = dataAgeSeconds(observedAt, now);
  return age === null ? 'empty' : age > maxAgeSeconds ? 'stale' : 'ok';
}

/**
 * The instant an answer stands for (its generatedAt): when its data last changed, so that the same data
 * gives the same body; but `now` for an answer that reads the clock (freshness=24h, staleness), which is
 * then what asOf=generatedAt takes as now to give the same answer again.
 */
export function answerInstant(dataChangedAt: Date, now: Date, readsClock: boolean): Date {
  return readsClock ? now : dataChangedAt;
}
