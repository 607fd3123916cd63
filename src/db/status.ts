// Whether the database answered the last time someone asked. Reads that fail mark it; the next that
// succeeds clears it. While it fails, answers are not cached (they may be missing what the database holds).
export class DatabaseStatus {
  private failingSince: number | null = null;
  private lastSuccess = -Infinity;

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

  /** Runs a read and records how it went. */
  async track<T>(read: () => Promise<T>): Promise<T> {
    try {
      const value = await read();
      this.succeeded();
      return value;
    } catch (err) {
      this.failed();
      throw err;
    }
  }
}
