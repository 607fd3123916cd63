// Whether the database answered the last time someone asked. Reads that fail mark it; the next that
// succeeds clears it. While it fails, answers are not cached (they may be missing what the database holds).
export class DatabaseStatus {
  private failingSince: number | null = null;

  ok(): boolean {
    return this.failingSince === null;
  }

  failed(now = Date.now()): void {
    this.failingSince ??= now;
  }

  succeeded(): void {
    this.failingSince = null;
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
