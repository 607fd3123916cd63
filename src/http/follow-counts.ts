// Counts kept elsewhere since the start (a lane's, the streams', the bound's), shown as Prometheus
// counters: at each scrape a counter adds what each count grew by since the last one.
import { Counter, type Registry } from 'prom-client';

/**
 * A counter named `name` following `counts()`: one series per key, labelled `label` (none when null).
 * The `keys` given are reported at 0 before their first event (inc(0) makes a series exist); without
 * them, the keys `counts()` returns.
 */
export function followCounts(
  registry: Registry,
  name: string,
  help: string,
  label: string | null,
  counts: () => Readonly<Record<string, number>>,
  keys?: readonly string[],
): void {
  const seen = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: label ? [label] : [],
    registers: [registry],
    collect() {
      const now = counts();
      for (const key of keys ?? Object.keys(now)) {
        const value = now[key] ?? 0;
        this.inc(label ? { [label]: key } : {}, Math.max(0, value - (seen.get(key) ?? 0)));
        seen.set(key, value);
      }
    },
  });
}
