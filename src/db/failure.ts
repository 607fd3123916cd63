// A database failure in words an operator can act on. The driver's errors come wrapped (Prisma's error,
// the adapter's, pg's, the system's), and the one that says what happened is often the innermost.

/** Every error in the chain: causes, and the driver error Prisma keeps in its meta. */
function chain(err: unknown): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  const visit = (e: unknown) => {
    if (typeof e !== 'object' || e === null || seen.includes(e as Record<string, unknown>) || seen.length > 20) return;
    const record = e as Record<string, unknown>;
    seen.push(record);
    visit(record.cause);
    visit((record.meta as Record<string, unknown> | undefined)?.driverAdapterError);
  };
  visit(err);
  return seen;
}

const text = (e: Record<string, unknown>) =>
  [e.message, e.code, e.originalCode, e.originalMessage].filter((v) => typeof v === 'string').join(' ');

/** ENOSPC from the file system, SQLSTATE 53100 (disk_full) from PostgreSQL. */
const DISK_FULL = /ENOSPC|\b53100\b|no space left on device|disk full/i;

export function isDiskFull(err: unknown): boolean {
  return chain(err).some((e) => DISK_FULL.test(text(e)));
}

export function describeDatabaseFailure(
  err: unknown,
  target: { databaseUrl: string | undefined; dataDir: string },
): string {
  if (isDiskFull(err)) {
    const where = target.databaseUrl ? 'the PostgreSQL server' : target.dataDir;
    return `no space left on the database's disk (${where}): free some space, then run the ingest again`;
  }
  const first = chain(err)[0];
  return typeof first?.message === 'string' && first.message !== '' ? first.message : String(err);
}
