// A per-client token bucket (off unless configured): polite clients never notice it; one that floods
// the service gets 429 with how long to wait. Every counted answer tells the client where it stands,
// in the IETF httpapi draft's fields: RateLimit-Policy (the quota per window) and RateLimit (what is
// left, and in how many seconds the bucket is full again).
const POLICY = 'default';

export interface Taken {
  /** 0: go on; else the seconds to wait before the next request can be taken. */
  retryAfter: number;
  /** Requests left now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  /** RateLimit-Policy: the quota, per 60-second window. */
  readonly policy: string;

  constructor(private readonly perMinute: number) {
    this.perMs = perMinute / 60_000;
    this.policy = RateLimiter.policyOf(perMinute);
  }

  static policyOf(perMinute: number): string {
    return `"${POLICY}";q=${perMinute};w=60`;
  }

  /** Takes a token for the client. */
  take(client: string, now = Date.now()): Taken {
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= 100_000) this.buckets.clear(); // bounded: the worst case is a fresh start for all
      bucket = { tokens: this.perMinute, at: now };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const seconds = (tokens: number) => Math.max(0, Math.ceil(tokens / this.perMs / 1000));
    return {
      retryAfter: allowed ? 0 : Math.max(1, seconds(1 - bucket.tokens)),
      remaining: Math.floor(bucket.tokens),
      reset: seconds(this.perMinute - bucket.tokens),
    };
  }

  /** RateLimit: what is left of the quota, and when it is whole again. */
  static header(taken: Taken): string {
    return `"${POLICY}";r=${taken.remaining};t=${taken.reset}`;
  }
}
