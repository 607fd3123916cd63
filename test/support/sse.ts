// Reading Server-Sent Events in tests, as an EventSource would parse them (WHATWG HTML §9.2.6):
// fields per line, events separated by a blank line, comments kept so tests can see heartbeats.
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comments: string[];
}

export interface SseReader {
  /** The next message (a block up to a blank line), or null when the stream ended. */
  next(timeoutMs?: number): Promise<SseMessage | null>;
  /** Messages until one satisfies `done` (included); throws on timeout or end. */
  until(done: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  /** Messages with data (events) until `count` of them arrived. */
  events(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  close(): Promise<void>;
}

export function readSse(body: ReadableStream<Uint8Array>): SseReader {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;

  function parse(block: string): SseMessage {
    const message: SseMessage = { comments: [] };
    for (const line of block.split(/\r\n|\r|\n/)) {
      if (line.startsWith(':')) {
        message.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
      else if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'retry') message.retry = Number(value);
    }
    return message;
  }

  async function next(timeoutMs = 10_000): Promise<SseMessage | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = text.search(/\r\n\r\n|\n\n|\r\r/);
      if (end >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end).replace(/^(\r\n\r\n|\n\n|\r\r)/, '');
        return parse(block);
      }
      if (ended) return null;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no SSE message within ${timeoutMs} ms; have ${JSON.stringify(text.slice(0, 200))}`);
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
      ]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') continue;
      if (chunk.done) ended = true;
      else text += decoder.decode(chunk.value, { stream: true });
    }
  }

  return {
    next,
    async until(done, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const seen: SseMessage[] = [];
      for (;;) {
        const m = await next(Math.max(1, deadline - Date.now()));
        if (!m) throw new Error(`the stream ended after ${JSON.stringify(seen)}`);
        seen.push(m);
        if (done(m)) return seen;
      }
    },
    async events(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const events: SseMessage[] = [];
      while (events.length < count) {
        const m = await next(Math.max(1, deadline - Date.now()));
        if (!m) throw new Error(`the stream ended after ${events.length} of ${count} events`);
        if (m.data !== undefined) events.push(m);
      }
      return events;
    },
    async close() {
      await reader.cancel().catch(() => {});
    },
  };
}
