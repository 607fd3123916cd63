// A binary heap: the item that comes `before` all others first. With a strict total order (no two items
// equal) the order items leave in does not depend on the order they came in.

export class PriorityQueue<T> {
  private readonly heap: T[] = [];

  /** `before(x, y)`: x leaves before y. */
  constructor(private readonly before: (x: T, y: T) => boolean) {}

  get size(): number {
    return this.heap.length;
  }

  /** The items waiting, in no particular order. */
  items(): readonly T[] {
    return this.heap;
  }

  push(item: T): void {
    const { heap, before } = this;
    let k = heap.push(item) - 1;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!before(item, heap[parent]!)) break;
      heap[k] = heap[parent]!;
      k = parent;
    }
    heap[k] = item;
  }

  pop(): T | undefined {
    const { heap, before } = this;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        if (l >= heap.length) break;
        const c = l + 1 < heap.length && before(heap[l + 1]!, heap[l]!) ? l + 1 : l;
        if (!before(heap[c]!, last)) break;
        heap[k] = heap[c]!;
        k = c;
      }
      heap[k] = last;
    }
    return top;
  }
}
