// Where the log's lines go: a file descriptor (standard output), written in batches of whole lines, one
// write at a time, off the event loop (the thread pool).
// pino's own destination (sonic-boom) wrote at most 4 KB per write, and a write's end is seen once per
// turn of the loop: under a flood of cached answers (32 connections, 15 lines a turn) the lines came
// faster than they left. The backlog grew to its bound, its lines lived long enough to be promoted, and
// full garbage collections ran four times a second; lines beyond the bound were lost. A process that
// has standard output to itself now writes everything waiting in one write.
import fs from 'node:fs';

/** What PIPE_BUF guarantees (POSIX): a pipe takes a write of at most this many bytes in one piece. */
export const ATOMIC_WRITE_BYTES = 4096;

export interface LineWriterOptions {
  /**
   * The most one write carries. ATOMIC_WRITE_BYTES where several processes share the descriptor (a
   * cluster's workers): a pipe keeps such a write in one piece, so their lines never interleave mid-line.
   */
  maxWriteBytes: number;
  /** Start writing once this many bytes wait. */
  minBytes: number;
  /** Bytes held at most while the reader falls behind; lines beyond it are dropped (and counted). */
  maxBacklogBytes: number;
  /** Written at least this often, so that a quiet service's lines are not held back. 0: never on a timer. */
  flushEveryMs: number;
  /** The system calls, for tests. */
  write?: typeof fs.write;
  writeSync?: typeof fs.writeSync;
}

/** How long to wait before trying again when a non-blocking descriptor is full. */
const RETRY_MS = 10;
/** How long flushSync keeps trying a full descriptor. */
const EXIT_PATIENCE_MS = 1000;
/** What flushSync waits on between tries (a synchronous sleep). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Each write is whole lines, at most maxWriteBytes (a longer line goes alone); what comes meanwhile waits. */
export class LineWriter {
  private lines: string[] = [];
  private sizes: number[] = [];
  /** The first line not yet taken: lines are taken from the front without moving the rest. */
  private head = 0;
  private waiting = 0;
  private writing = false;
  /** Lines dropped because the backlog was full. */
  dropped = 0;
  private readonly fsWrite: typeof fs.write;
  private readonly fsWriteSync: typeof fs.writeSync;

  constructor(
    private readonly fd: number,
    private readonly options: LineWriterOptions,
  ) {
    this.fsWrite = options.write ?? fs.write;
    this.fsWriteSync = options.writeSync ?? fs.writeSync;
    if (options.flushEveryMs > 0) {
      setInterval(() => this.drain(), options.flushEveryMs).unref();
    }
  }

  /** pino's destination: one line, ending in a newline. */
  write(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (this.waiting + bytes > this.options.maxBacklogBytes) {
      this.dropped++;
      return false;
    }
    this.lines.push(line);
    this.sizes.push(bytes);
    this.waiting += bytes;
    if (this.waiting >= this.options.minBytes) this.drain();
    return true;
  }

  /** The next batch: whole lines, at most maxWriteBytes unless one line alone is longer. */
  private take(): string {
    const { lines, sizes, head } = this;
    let end = head;
    let bytes = 0;
    while (end < lines.length && (end === head || bytes + sizes[end]! <= this.options.maxWriteBytes))
      bytes += sizes[end++]!;
    const batch = end === head + 1 ? lines[head]! : lines.slice(head, end).join('');
    this.waiting -= bytes;
    if (end === lines.length) {
      this.lines = [];
      this.sizes = [];
      this.head = 0;
    } else this.head = end;
    return batch;
  }

  private get empty(): boolean {
    return this.head === this.lines.length;
  }

  private drain(): void {
    if (this.writing || this.empty) return;
    this.writing = true;
    this.send(Buffer.from(this.take()));
  }

  private send(chunk: Buffer): void {
    this.fsWrite(this.fd, chunk, 0, chunk.length, null, (err, written) => {
      if (err && (err as NodeJS.ErrnoException).code !== 'EAGAIN') {
        // Nowhere left to say it: the lines are lost, the service goes on.
        this.writing = false;
        return;
      }
      if (err || written < chunk.length) {
        const rest = err ? chunk : chunk.subarray(written);
        setTimeout(() => this.send(rest), err ? RETRY_MS : 0).unref();
        return;
      }
      this.writing = false;
      if (this.waiting >= this.options.minBytes) this.drain();
    });
  }

  /**
   * Everything waiting, written now (before the process exits). A batch already being written is not
   * repeated. A descriptor that stays full is given up to a second (EXIT_PATIENCE_MS): a process told to
   * stop must not hang on its log.
   */
  flushSync(): void {
    const giveUpAt = performance.now() + EXIT_PATIENCE_MS;
    while (!this.empty) {
      let chunk = Buffer.from(this.take());
      while (chunk.length > 0) {
        try {
          chunk = chunk.subarray(this.fsWriteSync(this.fd, chunk));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || performance.now() > giveUpAt) return;
          Atomics.wait(PAUSE, 0, 0, RETRY_MS);
        }
      }
    }
  }
}
