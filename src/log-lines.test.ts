import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATOMIC_WRITE_BYTES, LineWriter, type LineWriterOptions } from './log-lines.js';

type Callback = (err: NodeJS.ErrnoException | null, written: number) => void;

/** A descriptor whose writes finish when the test says (one at a time, as the thread pool would). */
function fakeFd() {
  const writes: Buffer[] = [];
  const pending: { chunk: Buffer; done: Callback }[] = [];
  const write = ((_fd: number, chunk: Buffer, offset: number, length: number, _p: null, done: Callback) => {
    pending.push({ chunk: Buffer.from(chunk.subarray(offset, offset + length)), done });
  }) as unknown as typeof fs.write;
  const writeSync = ((_fd: number, chunk: Buffer) => {
    writes.push(Buffer.from(chunk));
    return chunk.length;
  }) as unknown as typeof fs.writeSync;
  /** Finishes the write in progress, `accept` bytes of it (all by default), or with an error. */
  const finish = (accept?: number | NodeJS.ErrnoException) => {
    const next = pending.shift();
    if (!next) throw new Error('no write in progress');
    if (typeof accept === 'object') return next.done(accept, 0);
    const n = accept ?? next.chunk.length;
    writes.push(next.chunk.subarray(0, n));
    next.done(null, n);
  };
  return { writes, pending, write, writeSync, finish, text: () => Buffer.concat(writes).toString() };
}

const line = (i: number, pad = 100) => `${JSON.stringify({ i, pad: 'x'.repeat(pad) })}\n`;

function writer(fd: ReturnType<typeof fakeFd>, options: Partial<LineWriterOptions> = {}) {
  return new LineWriter(9, {
    minBytes: 1000,
    maxWriteBytes: ATOMIC_WRITE_BYTES,
    maxBacklogBytes: 1 << 20,
    flushEveryMs: 0,
    write: fd.write,
    writeSync: fd.writeSync,
    ...options,
  });
}

describe('LineWriter', () => {
  it('holds lines until minBytes wait, then writes them whole, in order, one write at a time', () => {
    const fd = fakeFd();
    const w = writer(fd);
    for (let i = 0; i < 8; i++) w.write(line(i)); // 8 × ~120 bytes: under 1,000
    expect(fd.pending).toHaveLength(0);
    for (let i = 8; i < 200; i++) w.write(line(i));
    expect(fd.pending).toHaveLength(1); // the rest waits for the first write to end
    while (fd.pending.length > 0) fd.finish();
    w.flushSync();
    expect(fd.text()).toBe(Array.from({ length: 200 }, (_, i) => line(i)).join(''));
  });

  it('writes at most maxWriteBytes, and only whole lines, where processes share the descriptor', () => {
    const fd = fakeFd();
    const w = writer(fd);
    for (let i = 0; i < 500; i++) w.write(line(i, i % 7 === 0 ? 900 : 50));
    while (fd.pending.length > 0) fd.finish();
    w.flushSync();
    expect(fd.writes.length).toBeGreaterThan(5);
    for (const chunk of fd.writes) {
      expect(chunk.length).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
      expect(chunk.toString().endsWith('\n')).toBe(true);
    }
    expect(fd.text()).toBe(Array.from({ length: 500 }, (_, i) => line(i, i % 7 === 0 ? 900 : 50)).join(''));
  });

  it('keeps up with a flood: everything waiting goes in the next write when the descriptor is its own', () => {
    const fd = fakeFd();
    const w = writer(fd, { maxWriteBytes: 1 << 20 });
    // 60 lines (≈7 KB) between the ends of two writes (a loop turn under load), for 100 turns
    let i = 0;
    for (let turn = 0; turn < 100; turn++) {
      for (let k = 0; k < 60; k++) w.write(line(i++));
      if (fd.pending.length > 0) fd.finish();
    }
    // what is written trails by at most a turn or two: the backlog does not grow (4 KB writes fall behind)
    expect(fd.text().split('\n').length - 1).toBeGreaterThanOrEqual(i - 120);
    while (fd.pending.length > 0) fd.finish();
    w.flushSync();
    expect(fd.text()).toBe(Array.from({ length: i }, (_, n) => line(n)).join(''));
  });

  it('a line longer than maxWriteBytes goes alone, whole', () => {
    const fd = fakeFd();
    const w = writer(fd, { minBytes: 1 });
    w.write(line(1, 6000));
    fd.finish();
    expect(fd.writes).toHaveLength(1);
    expect(fd.text()).toBe(line(1, 6000));
  });

  it('drops whole lines beyond the backlog bound and counts them, and goes on once it drains', () => {
    const fd = fakeFd();
    const w = writer(fd, { maxBacklogBytes: 5000 });
    let kept = 0;
    for (let i = 0; i < 100; i++) if (w.write(line(i))) kept++;
    expect(kept).toBeLessThan(100);
    expect(w.dropped).toBe(100 - kept);
    while (fd.pending.length > 0) fd.finish();
    expect(w.write(line(1000))).toBe(true);
    while (fd.pending.length > 0) fd.finish();
    w.flushSync();
    const lines = fd.text().split('\n').filter(Boolean);
    expect(lines).toHaveLength(kept + 1);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  });

  it('writes the rest of a partial write, and tries again after EAGAIN, without losing or repeating', async () => {
    const fd = fakeFd();
    const w = writer(fd);
    for (let i = 0; i < 20; i++) w.write(line(i));
    fd.finish(300); // the descriptor took 300 bytes
    await new Promise((r) => setTimeout(r, 5));
    fd.finish(Object.assign(new Error('busy'), { code: 'EAGAIN' }));
    await new Promise((r) => setTimeout(r, 30));
    while (fd.pending.length > 0) fd.finish();
    w.flushSync();
    expect(fd.text()).toBe(Array.from({ length: 20 }, (_, i) => line(i)).join(''));
  });

  it('flushSync gives up on a descriptor that stays full, rather than hang the exit', () => {
    const fd = fakeFd();
    let tries = 0;
    const w = writer(fd, {
      writeSync: (() => {
        tries++;
        throw Object.assign(new Error('busy'), { code: 'EAGAIN' });
      }) as unknown as typeof fs.writeSync,
    });
    w.write(line(1));
    const started = performance.now();
    w.flushSync();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
    expect(tries).toBeGreaterThan(10);
  });

  it('flushSync writes what waits, for a process about to exit', () => {
    const fd = fakeFd();
    const w = writer(fd);
    w.write(line(1));
    w.write(line(2));
    expect(fd.writes).toHaveLength(0);
    w.flushSync();
    expect(fd.text()).toBe(line(1) + line(2));
  });
});

describe('LineWriter on a real file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-lines-'));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes every line of a burst, in order, and flushes on a timer when the service is quiet', async () => {
    const file = path.join(dir, 'out.log');
    const fdNum = fs.openSync(file, 'a');
    const w = new LineWriter(fdNum, {
      minBytes: 2048,
      maxWriteBytes: 1 << 20,
      maxBacklogBytes: 1 << 24,
      flushEveryMs: 20,
    });
    for (let i = 0; i < 20_000; i++) w.write(line(i, 20));
    w.write(line(-1, 0)); // alone after the burst: written by the timer
    await new Promise((r) => setTimeout(r, 300));
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(20_001);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([
      ...Array.from({ length: 20_000 }, (_, i) => i),
      -1,
    ]);
    fs.closeSync(fdNum);
  });
});
