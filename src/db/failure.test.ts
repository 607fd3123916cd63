import { describe, expect, it } from 'vitest';
import { describeDatabaseFailure } from './failure.js';

const embedded = { databaseUrl: undefined, dataDir: '/srv/savings/data' };
const postgres = { databaseUrl: 'postgresql://u:p@db:5432/savings', dataDir: './data' };

/** As Prisma reports PostgreSQL's disk_full (seen on a full tmpfs under the embedded database). */
const prismaDiskFull = Object.assign(
  new Error('Invalid `prisma.$executeRawUnsafe()` invocation: Raw query failed. Code: `53100`.'),
  {
    code: 'P2010',
    meta: {
      driverAdapterError: Object.assign(new Error('could not extend file "base/5/16481": No space left on device'), {
        cause: {
          originalCode: '53100',
          kind: 'postgres',
          code: '53100',
          message: 'could not extend file "base/5/16481": No space left on device',
        },
      }),
    },
  },
);
const fsDiskFull = Object.assign(
  new Error("ENOSPC: no space left on device, open '/srv/savings/data/write-queue/3.json'"),
  { code: 'ENOSPC', errno: -28 },
);
const wrapped = new Error('the ingest failed', { cause: fsDiskFull });

describe('describeDatabaseFailure', () => {
  it.each([
    [
      "PostgreSQL's disk_full through Prisma",
      prismaDiskFull,
      embedded,
      "no space left on the database's disk (/srv/savings/data): free some space, then run the ingest again",
    ],
    [
      'ENOSPC from the file system',
      fsDiskFull,
      embedded,
      "no space left on the database's disk (/srv/savings/data): free some space, then run the ingest again",
    ],
    [
      'ENOSPC as the cause of another error',
      wrapped,
      embedded,
      "no space left on the database's disk (/srv/savings/data): free some space, then run the ingest again",
    ],
    [
      'disk_full on a PostgreSQL server',
      prismaDiskFull,
      postgres,
      "no space left on the database's disk (the PostgreSQL server): free some space, then run the ingest again",
    ],
    [
      'any other failure, as the driver put it',
      new Error('connect ECONNREFUSED 127.0.0.1:5432'),
      postgres,
      'connect ECONNREFUSED 127.0.0.1:5432',
    ],
  ])('says %s in words', (_what, err, target, message) => {
    expect(describeDatabaseFailure(err, target)).toBe(message);
  });
});
