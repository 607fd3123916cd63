// PGlite is one PostgreSQL session; pglite-socket shares it between every connection of the pool.
// Its queue (0.2.17) hands the session to one connection only inside an explicit transaction, so
// the messages of two connections' Parse/Bind/Execute/Sync sequences can interleave: one query's
// Bind then binds the other's statement and returns its rows (electric-sql/pglite#1046). That
// happens whenever queries queue up, e.g. behind an ingest's transaction. This replaces the queue's
// scheduling: a connection owns the session from its first message until the session is idle again,
// and a message that throws fails alone instead of stopping the queue for good.
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(err: unknown): void;
  onData(data: Uint8Array): void;
}

/** The fields and methods of pglite-socket's (unexported) QueryQueueManager that this replaces. */
interface QueryQueue {
  db: PGlite;
  queue: QueuedMessage[];
  processing: boolean;
  processQueue(): Promise<void>;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

const SYNC = 0x53; // 'S': ends an extended-protocol sequence
const QUERY = 0x51; // 'Q': a simple query, a sequence of its own
const TERMINATE = 0x58; // 'X'
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

/** Only messages that end with ReadyForQuery can leave the session idle; startup messages (type byte 0) too. */
const endsExchange = (message: Uint8Array) => {
  const type = message[0];
  return type === SYNC || type === QUERY || type === TERMINATE || type === 0;
};

export function installSessionAffinity(server: PGLiteSocketServer): void {
  const q = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  if (
    !q ||
    !Array.isArray(q.queue) ||
    typeof q.processQueue !== 'function' ||
    typeof q.clearTransactionIfNeeded !== 'function'
  ) {
    throw new Error('pglite-socket changed its queue: review src/db/pglite-session.ts before upgrading');
  }
  let owner: number | null = null;
  const gone = new Set<number>();

  /** Gives the session back after its owner disconnected: an open transaction is rolled back. */
  async function release(): Promise<void> {
    if (owner === null || !gone.has(owner)) return;
    gone.delete(owner);
    owner = null;
    try {
      // Only reads run outside explicit transactions here, so finishing a half-sent sequence with a
      // Sync commits nothing; an explicit transaction is rolled back, as PostgreSQL does on disconnect.
      if (!q.db.isInTransaction()) await q.db.runExclusive(() => q.db.execProtocolRaw(SYNC_MESSAGE));
      if (q.db.isInTransaction()) await q.db.exec('ROLLBACK');
    } catch {
      // a session that cannot even roll back is beyond rescue here; the next query will report it
    }
  }

  q.processQueue = async function processQueue(): Promise<void> {
    if (q.processing) return;
    q.processing = true;
    try {
      for (;;) {
        await release();
        const index = owner === null ? (q.queue.length > 0 ? 0 : -1) : q.queue.findIndex((m) => m.handlerId === owner);
        if (index === -1) return; // the owner's next message restarts the queue
        const [item] = q.queue.splice(index, 1) as [QueuedMessage];
        let bytes = 0;
        try {
          await q.db.runExclusive(() =>
            q.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (err) {
          owner = endsExchange(item.message) && !q.db.isInTransaction() ? null : item.handlerId;
          item.reject(err);
          continue;
        }
        owner = endsExchange(item.message) && !q.db.isInTransaction() ? null : item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      q.processing = false;
    }
  };

  // Called by pglite-socket when a connection goes away (after its queued messages were dropped).
  q.clearTransactionIfNeeded = async function clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (owner !== handlerId) return;
    gone.add(handlerId);
    if (!q.processing) await q.processQueue(); // otherwise the running loop releases it next
  };
}
