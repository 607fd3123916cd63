// Whether the database answered the last time someone asked. Reads that fail mark it; the next that
// succeeds clears it. While it fails, answers are not cached (they may be missing what the database holds).
export class DatabaseStatus {
  private failingSince: number | null = null;
  private lastSuccess = -Infinity;
  private reading = 0;

  ok(): boolean {
    return this.failingSince === null;
  }

  failed(now = Date.now()): void {
    this.failingSince ??= now;
  }

  succeeded(): void {
    this.failingSince = null;
    this.lastSuccess = performance.now();
  }

  /** Whether a read succeeded within the last `ms` and none failed since. */
  answeredWithin(ms: number): boolean {
    return this.failingSince === null && performance.now() - this.lastSuccess <= ms;
  }

  /**
   * Whether a tracked read is under way and none failed: a probe stuck behind it (the embedded
   * database runs one statement at a time, a catalogue's load among them) is waiting, not lost.
   */
  busy(): boolean {
    return this.failingSince === null && this.reading > 0;
  }

  /** Runs a read and records how it went. */
  async track<T>(read: () => Promise<T>): Promise<T> {
    this.reading++;
    try {
      const value = await read();
      this.succeeded();
      return value;
    } catch (err) {
      this.failed();
      throw err;
    } finally {
      this.reading--;
    }
  }
}
