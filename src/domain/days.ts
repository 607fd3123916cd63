/** A day in milliseconds: market days, the 24-hour freshness window and the sample's calendar are UTC days. */
export const DAY_MS = 86_400_000;
