// The best plan found so far, and the test every bound is put to against it.
import { Decimal, ZERO } from '../decimal.js';
import { better, EPSILON_FLOAT, type Bound, type PlanPart } from './types.js';

export class Incumbent {
  placed = 0;
  value: Decimal = ZERO;
  /** `value` in floating point, for comparing bounds. */
  valueFloat = 0;
  /** In candidate order. */
  parts: PlanPart[] = [];

  constructor(private readonly placementOnly: boolean) {}

  /** Whether a plan placing `placed` and earning `value` would beat this one. */
  beatenBy(placed: number, value: Decimal): boolean {
    return better(placed, value, this.placed, this.value);
  }

  /** Takes a plan that beats this one; `parts` is asked only then. */
  offer(placed: number, value: Decimal, parts: () => PlanPart[]): void {
    if (!this.beatenBy(placed, value)) return;
    this.placed = placed;
    this.value = value;
    this.valueFloat = value.toNumber();
    this.parts = parts();
  }

  /** Whether no completion with this bound can beat this plan (more placed, or as much and more earned). */
  prunes(b: Bound): boolean {
    return (
      b.placed < this.placed ||
      (b.placed === this.placed && (this.placementOnly || b.value + b.margin <= this.valueFloat + EPSILON_FLOAT))
    );
  }
}
