// Bounded requests (issue 19): a body over the limit is refused with 413 problem+json before it is read
// (declared length) or while it is (chunked); a document over the token limit is a 400 like the other
// limits; no error echoes more than a few hundred characters of what the client sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIMITS } from '../src/graphql/limits.js';
import { MAX_ECHO } from '../src/request/errors.js';
import { MAX_BODY_BYTES } from '../src/http/admission.js';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let server: http.Server;
let port: number;
beforeAll(async () => {
  t = await createTestApp({ days: 2 });
  server = http.createServer(t.app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

/** A POST to /graphql over the network, chunked (no Content-Length) when asked. */
function post(body: string, chunked = false): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    if (chunked) for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.slice(i, i + 16 * 1024));
    else req.write(body);
    req.end();
  });
}

describe('request bodies', () => {
  it.each([
    ['a 1 MB query document', JSON.stringify({ query: `{ meta { dataVersion } } # ${'x'.repeat(1_000_000)}` }), false],
    [
      '5 MB of variables',
      JSON.stringify({ query: '{ meta { dataVersion } }', variables: { junk: 'y'.repeat(5_000_000) } }),
      false,
    ],
    [
      '200 KB sent chunked, without a length',
      JSON.stringify({ query: `{ meta { dataVersion } } # ${'z'.repeat(200_000)}` }),
      true,
    ],
  ])('refuses %s with 413 problem+json', async (_what, body, chunked) => {
    const res = await post(body, chunked);
    expect(res.status).toBe(413);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.text)).toMatchObject({
      status: 413,
      detail: expect.stringContaining(String(MAX_BODY_BYTES)),
    });
  });

  it('takes a body just under the limit', async () => {
    const query = `{ meta { dataVersion } } # ${'x'.repeat(MAX_BODY_BYTES - 200)}`;
    const res = await post(JSON.stringify({ query }));
    expect(res.status).toBe(200);
  });
});

describe('documents', () => {
  it('refuses a document over the token limit as a limit: 400, QUERY_TOO_COMPLEX', async () => {
    const fields = Array.from({ length: OPERATION_LIMITS.tokens }, () => '__typename').join(' ');
    const res = await post(JSON.stringify({ query: `{ ${fields} }` }));
    expect(res.status).toBe(400);
    const error = JSON.parse(res.text).errors[0];
    expect(error.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'tokens',
      max: OPERATION_LIMITS.tokens,
    });
  });
});

describe('what errors echo', () => {
  it('cuts a huge unknown field name in the GraphQL error', async () => {
    const name = `f${'a'.repeat(50_000)}`;
    const res = await post(JSON.stringify({ query: `{ ${name} }` }));
    expect(res.status).toBeLessThan(500);
    const message: string = JSON.parse(res.text).errors[0].message;
    expect(message.length).toBeLessThan(MAX_ECHO + 100);
    expect(message).toMatch(/more characters/);
  });

  it('cuts a huge path in a 404 problem', async () => {
    const res = await t.get(`/api/${'p'.repeat(7_000)}`);
    expect(res.status).toBe(404);
    const problem = (await res.json()) as { detail: string };
    expect(problem.detail.length).toBeLessThan(4 * MAX_ECHO);
  });
});
