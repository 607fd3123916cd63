// A per-client token bucket (off unless configured): polite clients never notice it; one that floods
// the service gets 429 with how long to wait.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(private readonly perMinute: number) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes a token for the client; returns 0 when it may go on, else the seconds to wait. */
  take(client: string, now = Date.now()): number {
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= 100_000) this.buckets.clear(); // bounded: the worst case is a fresh start for all
      bucket = { tokens: this.perMinute, at: now };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }
}
