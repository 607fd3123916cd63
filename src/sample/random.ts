// Seeded pseudo-random numbers for the sample market. sfc32 (a 128-bit small fast counting
// generator), seeded through splitmix32. Only 32-bit integer operations and IEEE-754 + − × ÷ are
// used (no Math.log, Math.sin…, whose last bits may differ between engines), so a seed gives the same
// sequence on every platform and Node version.

/** Murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A stable 32-bit hash of a list of labels (FNV-1a over their UTF-16 code units, each part closed by
 * its length so that ('ab', 'c') and ('a', 'bc') differ). Numbers hash as their decimal text.
 */
export function hash32(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = typeof part === 'number' ? String(part) : part;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= s.length + 0x9e3779b9;
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

export class Rng {
  /** The 32-bit seed this stream started from; forks derive from it, not from the stream's position. */
  readonly key: number;
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.key = seed >>> 0;
    // splitmix32 expands the one word into sfc32's four.
    let s = this.key;
    const split = (): number => {
      s = (s + 0x9e3779b9) | 0;
      return fmix32(s);
    };
    this.a = split();
    this.b = split();
    this.c = split();
    this.d = 1;
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /**
   * An independent stream named by labels: the same (parent key, labels) always gives the same
   * stream, however much of the parent has been consumed, so adding draws in one place does not
   * shift the numbers everywhere else.
   */
  fork(...labels: readonly (string | number)[]): Rng {
    return new Rng(hash32(this.key, ...labels));
  }

  /** The next 32-bit unsigned integer (sfc32). */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new RangeError(`int(${min}, ${max}): need integers with min <= max`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One value, chosen with probability proportional to its (non-negative) weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
    let r = this.next() * total;
    for (const [value, w] of entries) {
      if (r < w) return value;
      r -= w;
    }
    // Rounding can leave r a hair above the last weight: the last positive entry wins then.
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] as readonly [T, number];
      if (entry[1] > 0) return entry[0];
    }
    throw new RangeError('unreachable');
  }

  /**
   * Approximately normal: the Irwin–Hall sum of twelve uniforms minus six has mean 0 and variance 1
   * (tails end at ±6 sd, which suits prices). Used instead of Box–Muller to stay off Math.log/cos.
   */
  normal(mean = 0, sd = 1): number {
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += this.next();
    return mean + (sum - 6) * sd;
  }

  /** A shuffled copy (Fisher–Yates); the input is left alone. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }

  /** k distinct items in their original order (k is capped at the list's length). */
  sample<T>(items: readonly T[], k: number): T[] {
    const chosen = new Set(this.shuffle(items.map((_, i) => i)).slice(0, Math.max(0, k)));
    return items.filter((_, i) => chosen.has(i));
  }
}
