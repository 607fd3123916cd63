// A partial plan as the search holds it: the parts chosen so far (a candidate and a segment each) and
// the sums the bounds read of them, kept up to date as parts are added and removed.
import type { Chosen } from './types.js';

export class PartialPlan {
  readonly parts: Chosen[] = [];
  /** Per institution: the least its chosen parts hold (their segments' lower ends). */
  readonly groupLo: Float64Array;
  /** The least all chosen parts hold, and the non-flexible ones. */
  sumLo = 0;
  sumLoFixed = 0;

  constructor(groups: number) {
    this.groupLo = new Float64Array(groups);
  }

  push(part: Chosen): void {
    this.parts.push(part);
    this.apply(part, 1);
  }

  pop(): void {
    const part = this.parts.pop();
    if (part) this.apply(part, -1);
  }

  /** Makes the plan these parts, in this order. */
  set(parts: readonly Chosen[]): void {
    while (this.parts.length > 0) this.pop();
    for (const part of parts) this.push(part);
  }

  private apply({ cand, seg }: Chosen, sign: 1 | -1): void {
    this.groupLo[cand.group] = this.groupLo[cand.group]! + sign * seg.lo;
    this.sumLo += sign * seg.lo;
    if (!cand.flexible) this.sumLoFixed += sign * seg.lo;
  }
}
