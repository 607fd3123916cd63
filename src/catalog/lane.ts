// Long calculations (the savings plan's search: up to seconds of CPU) share the event loop that answers
// everyone else. Each is a generator that yields between small steps; the lane runs one of them for at
// most a slice, then lets the loop take whatever arrived (cached answers, health, other requests) before
// the next slice, round robin. So a plan never holds the loop for longer than a slice, a request whose
// client went stops within one, and at most `capacity` of them run at once: more are refused at once
// (LaneFull) rather than queued behind seconds of work.

/**
 * Each lane runs one slice per turn of the loop, so a slice is a floor under every turn's length, and
 * every request that waits for the loop (a refusal, health, a read's answer) waits about that long. At
 * 2 ms rather than 4 the overload bench admitted 292–323 rather than 263–275 answers/s at twice capacity,
 * with admitted p99 288–325 rather than 316–420 ms (alternated runs; README, Overload).
 */
const SLICE_MS = 2;

/** Thrown when the lane already runs as many tasks as it may. */
export class LaneFull extends Error {
  constructor(readonly capacity: number) {
    super(`${capacity} long calculations are running in this process`);
    this.name = 'LaneFull';
  }
}

interface Task {
  steps: Generator<unknown, unknown, void>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
}

export interface LaneFigures {
  /** Tasks running (each has had or waits for slices). */
  running: number;
  capacity: number;
  /** Tasks refused because the lane was full, since the start. */
  refused: number;
  /** Tasks stopped because their client went, since the start. */
  abandoned: number;
  /** CPU milliseconds spent in slices, since the start. */
  busyMs: number;
}

export class CpuLane {
  private readonly tasks: Task[] = [];
  private scheduled = false;
  private refused = 0;
  private abandoned = 0;
  private busyMs = 0;

  constructor(
    /** Milliseconds one slice may run before the loop is let go. */
    readonly sliceMs = SLICE_MS,
    /** Tasks at once; more are refused. */
    readonly capacity = 4,
    /**
     * Which task the next slice goes to: round robin shares the CPU (a short plan is not kept waiting
     * behind a long one); oldest first finishes tasks in the order they came, the loop still let go
     * between slices, so that tasks of similar size are not all slowed down to the last one's end.
     */
    readonly order: 'round-robin' | 'oldest-first' = 'round-robin',
  ) {}

  /** The generator's value, computed in slices; rejects with the signal's reason if it aborts first. */
  run<T>(steps: Generator<unknown, T, void>, signal?: AbortSignal): Promise<T> {
    if (this.tasks.length >= this.capacity) {
      this.refused++;
      return Promise.reject(new LaneFull(this.capacity));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      this.tasks.push({ steps, resolve: resolve as (v: unknown) => void, reject, signal });
      this.schedule();
    });
  }

  figures(): LaneFigures {
    const { refused, abandoned, capacity } = this;
    return { running: this.tasks.length, capacity, refused, abandoned, busyMs: Math.round(this.busyMs) };
  }

  private schedule(): void {
    if (this.scheduled || this.tasks.length === 0) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    const task = this.tasks.shift();
    if (!task) return;
    if (task.signal?.aborted) {
      this.abandoned++;
      task.steps.return(undefined);
      task.reject(task.signal.reason);
    } else {
      const start = performance.now();
      const end = start + this.sliceMs;
      try {
        for (;;) {
          const step = task.steps.next();
          if (step.done) {
            task.resolve(step.value);
            break;
          }
          if (performance.now() >= end) {
            if (this.order === 'oldest-first') this.tasks.unshift(task);
            else this.tasks.push(task);
            break;
          }
        }
      } catch (err) {
        task.reject(err);
      }
      this.busyMs += performance.now() - start;
    }
    this.schedule();
  };
}

/** The process's lane for plans: one event loop, one lane. */
export const cpuLane = new CpuLane();

/**
 * Lists in slices beside the plans' lane. Never refused here: a list is at most a fraction of a second
 * of work, and how many run at once is the bound of work in progress's to decide (src/http/overload.ts).
 */
export const listLane = new CpuLane(SLICE_MS, Number.POSITIVE_INFINITY, 'oldest-first');
