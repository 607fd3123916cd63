// The amounts of a savings plan once its parts are chosen (docs/calculation.md, "The savings plan"):
// each part p lies in [lo, hi] grid units and is valued by the line slope·x (+ a constant), the parts
// of one institution share its limit, the non-flexible parts share what the flexible reserve leaves,
// and all of them share the amount. First as much as possible is placed, then the value is maximised.
//
// This is a linear programme over a network (source → institution → flexible / non-flexible →
// sink), so its optimum is integral for integral bounds and is found exactly: without a binding
// non-flexible limit the constraints are nested (institutions inside the total) and filling the
// steepest slope first is optimal; with it, successive longest augmenting paths (a max-weight flow),
// in Decimal. Pure: numbers of grid units in, grid units out.
import { compareDecimals, Decimal, ZERO } from '../decimal.js';

export interface LpPart {
  group: number;
  flexible: boolean;
  lo: number;
  hi: number;
  /** Value per grid unit. */
  slope: Decimal;
}

export interface LpLimits {
  /** Per group: the units its parts may add up to. */
  groupLimits: readonly number[];
  /** The units all parts may add up to. */
  total: number;
  /** The units the non-flexible parts may add up to. */
  maxNonFlexible: number;
}

/**
 * The amount of each part (same order as `parts`): the most units that fit, and of those the highest
 * Σ slope·x. Null when the lower bounds alone break a limit.
 */
export function solvePlanLp(parts: readonly LpPart[], limits: LpLimits): number[] | null {
  const room = new Map<number, number>();
  let total = limits.total;
  let nonFlexible = limits.maxNonFlexible;
  const x = parts.map((p) => p.lo);
  for (const p of parts) {
    room.set(p.group, (room.get(p.group) ?? limits.groupLimits[p.group]!) - p.lo);
    total -= p.lo;
    if (!p.flexible) nonFlexible -= p.lo;
  }
  if (total < 0 || nonFlexible < 0 || [...room.values()].some((r) => r < 0)) return null;

  const order = parts.map((_, i) => i).sort((a, b) => compareDecimals(parts[b]!.slope, parts[a]!.slope) || a - b);
  // Steepest first within institutions and the total: optimal when the non-flexible limit does not bind.
  const greedyRoom = new Map(room);
  let left = total;
  let nonFlexibleUsed = 0;
  for (const i of order) {
    const p = parts[i]!;
    const add = Math.min(p.hi - p.lo, greedyRoom.get(p.group)!, left);
    x[i] = p.lo + add;
    greedyRoom.set(p.group, greedyRoom.get(p.group)! - add);
    left -= add;
    if (!p.flexible) nonFlexibleUsed += add;
  }
  if (nonFlexibleUsed <= nonFlexible) return x;
  return maxWeightFlow(parts, room, total, nonFlexible);
}

interface Edge {
  to: number;
  cap: number;
  cost: Decimal;
  /** Index of the reverse edge in `edges`. */
  rev: number;
}

/**
 * Successive longest paths: each augmentation keeps the flow the heaviest of its size (the residual
 * graph never has a positive cycle), so the last one is the heaviest of the largest flow. The graph has
 * a handful of nodes (the institutions of the chosen parts), so Bellman–Ford in Decimal is cheap.
 */
function maxWeightFlow(
  parts: readonly LpPart[],
  room: ReadonlyMap<number, number>,
  total: number,
  nonFlexible: number,
): number[] {
  const groups = [...room.keys()];
  const nodeOf = new Map(groups.map((g, i) => [g, 1 + i]));
  const flexNode = groups.length + 1;
  const fixedNode = groups.length + 2;
  const sink = groups.length + 3;
  const nodes = groups.length + 4;
  const edges: Edge[] = [];
  const out: number[][] = Array.from({ length: nodes }, () => []);
  const addEdge = (from: number, to: number, cap: number, cost: Decimal): number => {
    const e = edges.length;
    edges.push({ to, cap, cost, rev: e + 1 }, { to: from, cap: 0, cost: cost.neg(), rev: e });
    out[from]!.push(e);
    out[to]!.push(e + 1);
    return e;
  };
  for (const g of groups) addEdge(0, nodeOf.get(g)!, room.get(g)!, ZERO);
  const partEdge = parts.map((p) =>
    addEdge(nodeOf.get(p.group)!, p.flexible ? flexNode : fixedNode, p.hi - p.lo, p.slope),
  );
  addEdge(flexNode, sink, total, ZERO);
  addEdge(fixedNode, sink, nonFlexible, ZERO);

  let flow = 0;
  while (flow < total) {
    const dist: (Decimal | null)[] = new Array(nodes).fill(null);
    const via: number[] = new Array(nodes).fill(-1);
    dist[0] = ZERO;
    for (let round = 0; round < nodes; round++) {
      let changed = false;
      for (let v = 0; v < nodes; v++) {
        const d = dist[v];
        if (d === null || d === undefined) continue;
        for (const e of out[v]!) {
          const edge = edges[e]!;
          if (edge.cap <= 0) continue;
          const candidate = d.plus(edge.cost);
          const current = dist[edge.to];
          if (current === null || current === undefined || compareDecimals(candidate, current) > 0) {
            dist[edge.to] = candidate;
            via[edge.to] = e;
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    if (dist[sink] === null) break;
    let push = total - flow;
    for (let v = sink; v !== 0;) {
      const e = edges[via[v]!]!;
      push = Math.min(push, e.cap);
      v = edges[e.rev]!.to;
    }
    for (let v = sink; v !== 0;) {
      const e = edges[via[v]!]!;
      e.cap -= push;
      edges[e.rev]!.cap += push;
      v = edges[e.rev]!.to;
    }
    flow += push;
  }
  return parts.map((p, i) => p.lo + edges[edges[partEdge[i]!]!.rev]!.cap);
}
