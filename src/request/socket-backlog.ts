// What a stream's connection holds that its client has not read, and the bound on it. A client that
// stops reading does not stop the writes at once: Node's buffer for the socket is small (16 KB, and
// writes wait for it to drain), but the kernel's send queue takes up to tcp_wmem's maximum (4 MB by
// default) before Node sees any back-pressure. Counting only what waits in the process let 40 streams
// that never read hold 66.6 MB of kernel memory after six ingests.
//
// So the bound counts both: Node's buffer (socket.writableLength) and the kernel's send queue for the
// socket (bytes written and not yet acknowledged by the client), which Linux shows per socket in
// /proc/net/tcp and /proc/net/tcp6 (tx_queue, found by the socket's inode). The table is read only
// when a stream may be over its bound: what a socket holds is at most what was measured last plus what
// has been written since, so most writes need no reading at all, and one reading (at most one every
// PROBE_EVERY_MS) answers every stream that asks meanwhile. Elsewhere than on Linux the kernel's part
// is unknown and only Node's buffer is counted.
//
// A stream whose connection holds more than the bound is given nothing more until its client reads;
// one still over it after the grace period is cut with a reset (RST), which frees its kernel queue at
// once (a plain close would keep the unsent bytes queued while the kernel tries to deliver them).
import { readFile, readlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { currentSocket } from './context.js';

/** Bytes in the kernel's send queue per socket inode (only sockets whose queue is not empty). */
export type SendQueues = Map<number, number>;

/**
 * Parses /proc/net/tcp or tcp6: each socket's line holds `tx_queue:rx_queue` (hex) in its fifth
 * column and its inode in its tenth.
 */
export function parseSendQueues(table: string, into: SendQueues = new Map()): SendQueues {
  for (const line of table.split('\n')) {
    const columns = line.trim().split(/\s+/);
    const queues = columns[4];
    if (!queues || !/^[0-9A-F]{8}:[0-9A-F]{8}$/i.test(queues)) continue; // the header, or a blank line
    const tx = parseInt(queues.slice(0, 8), 16);
    if (tx > 0) into.set(Number(columns[9]), tx);
  }
  return into;
}

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const PROBE_EVERY_MS = 100;

/** The kernel's send queues, read at most every PROBE_EVERY_MS; null where the system does not show them. */
function sendQueueReader(): () => Promise<SendQueues | null> {
  let last: { at: number; queues: Promise<SendQueues | null> } | null = null;
  return () => {
    const now = Date.now();
    if (last && now - last.at < PROBE_EVERY_MS) return last.queues;
    const queues = Promise.all(TABLES.map((file) => readFile(file, 'latin1').catch(() => null))).then((tables) =>
      tables.every((t) => t === null)
        ? null
        : tables.reduce((into, t) => (t === null ? into : parseSendQueues(t, into)), new Map() as SendQueues),
    );
    last = { at: now, queues };
    return queues;
  };
}

const readSendQueues = sendQueueReader();
const inodes = new WeakMap<Socket, Promise<number | null>>();

/** The socket's inode, from its file descriptor (an internal of Node's TCP handle, present on POSIX). */
function inodeOf(socket: Socket): Promise<number | null> {
  let inode = inodes.get(socket);
  if (!inode) {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    inode =
      typeof fd === 'number' && fd >= 0
        ? readlink(`/proc/self/fd/${fd}`).then(
            (link) => Number(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? NaN) || null,
            () => null,
          )
        : Promise.resolve(null);
    inodes.set(socket, inode);
  }
  return inode;
}

/** What the kernel holds for this socket that its peer has not acknowledged; null when it cannot be known. */
export async function kernelSendQueue(socket: Socket): Promise<number | null> {
  const [inode, queues] = await Promise.all([inodeOf(socket), readSendQueues()]);
  return inode === null || queues === null ? null : (queues.get(inode) ?? 0);
}

export interface SocketBacklogOptions {
  /** What the connection may hold unread. */
  maxBytes: number;
  /** How long it may stay over the bound before it is cut. */
  graceMs: number;
  /** How often a stream over its bound looks again. */
  pollMs?: number;
  /** The kernel's part (tests give their own). */
  probe?: (socket: Socket) => Promise<number | null>;
}

/** The bound on what one streaming connection holds unread. */
export class SocketBacklog {
  /** What it held when last measured, and how much had been written then. */
  private held = 0;
  private writtenThen: number;

  constructor(
    private readonly socket: Socket,
    private readonly options: SocketBacklogOptions,
  ) {
    this.writtenThen = socket.bytesWritten;
  }

  /** At most what the connection holds now: what it held when measured, and all written since. */
  private upperBound(): number {
    return this.held + (this.socket.bytesWritten - this.writtenThen);
  }

  /** What it holds now, measured: Node's buffer and the kernel's send queue. */
  async measure(): Promise<number> {
    const written = this.socket.bytesWritten;
    const kernel = await (this.options.probe ?? kernelSendQueue)(this.socket);
    this.held = this.socket.writableLength + (kernel ?? 0);
    this.writtenThen = written;
    return this.held;
  }

  /**
   * Whether more may be written: at once when it holds less than the bound; otherwise once its client
   * has read enough, waiting up to the grace period; false when it did not (cut it).
   */
  async room(): Promise<boolean> {
    if (this.upperBound() < this.options.maxBytes) return true;
    const deadline = Date.now() + this.options.graceMs;
    for (;;) {
      // A connection already gone is no slow client: its stream ends as its client left.
      if (this.socket.destroyed) return true;
      if ((await this.measure()) < this.options.maxBytes) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
    }
  }

  /** Ends the connection with a reset, dropping what the kernel still holds for it. */
  cut(): void {
    if (this.socket.destroyed) return;
    if (typeof this.socket.resetAndDestroy === 'function') this.socket.resetAndDestroy();
    else this.socket.destroy();
  }
}

/**
 * For a stream answering the current request: whether its connection has room (absent without a
 * socket), and how to cut it (a reset; without a socket, nothing to cut).
 */
export function streamConnection(config: { streamBufferMaxBytes: number; streamHeartbeatMs: number }): {
  room?: () => Promise<boolean>;
  cut: () => void;
} {
  const socket = currentSocket();
  if (!socket) return { cut: () => {} };
  const backlog = new SocketBacklog(socket, {
    maxBytes: config.streamBufferMaxBytes,
    graceMs: config.streamHeartbeatMs,
  });
  return { room: () => backlog.room(), cut: () => backlog.cut() };
}
