// Per-institution scratch for one pass of a bound: the room left at each institution, started afresh
// by a stamp instead of clearing an array per pass (a bound makes dozens of passes).
import type { PartialPlan } from './partial.js';

export class GroupRooms {
  /** Valid for the institutions `touch`ed in this pass. */
  readonly room: Float64Array;
  private readonly stamp: Int32Array;
  private now = 0;

  constructor(
    private readonly groupLimits: readonly number[],
    private readonly plan: PartialPlan,
  ) {
    this.room = new Float64Array(groupLimits.length);
    this.stamp = new Int32Array(groupLimits.length);
  }

  /** Starts a pass: each institution's room is again its limit less what the chosen parts hold at least. */
  next(): void {
    this.now++;
  }

  /** Sets g's room if this pass has not yet; true then. */
  touch(g: number): boolean {
    if (this.stamp[g] === this.now) return false;
    this.stamp[g] = this.now;
    this.room[g] = this.groupLimits[g]! - this.plan.groupLo[g]!;
    return true;
  }

  /** g's room in this pass. */
  of(g: number): number {
    this.touch(g);
    return this.room[g]!;
  }
}
