// The bound on a GraphQL request's body: yoga's own (maxRequestBodySize), without its cost where it cannot
// matter. yoga pipes every POST body through a TransformStream that counts its bytes and makes a second
// Request around it, whatever the body's declared length. A body with a Content-Length is that long and
// no longer: Node's HTTP parser reads exactly that many bytes as the body (the next ones are another
// request), and refuses a request that declares both a length and chunks. So a declared length within
// the bound is checked as a number, and only a body without one (chunked) is counted as it arrives, with
// yoga's code and errors (its limiter is not among what the package exports, so `counted` is its counting
// again). The HTTP front refuses a declared length over the bound before any of this.
import { createGraphQLError, type Plugin } from 'graphql-yoga';

const tooLarge = () =>
  createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });

/** Only a single non-negative integer is a Content-Length (a list of them is a smuggling attempt). */
const CONTENT_LENGTH = /^\d+$/;

/** The body counted as it is read: an error once it passes `limit` bytes. */
function counted(
  request: Request,
  limit: number,
  TransformStreamCtor: typeof TransformStream,
  RequestCtor: typeof Request,
): Request {
  let bytes = 0;
  const body = request.body!.pipeThrough(
    new TransformStreamCtor<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new RequestCtor(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body,
    duplex: 'half',
  } as RequestInit);
}

/** Given to yoga in place of its maxRequestBodySize (which is then false). */
export function bodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (!CONTENT_LENGTH.test(length))
          throw createGraphQLError('Content-Length header is invalid.', {
            extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
          });
        if (Number(length) > limit) throw tooLarge();
        return;
      }
      if (requestParser == null || request.body == null) return;
      // yoga's reason for choosing the constructor: a native stream cannot be piped through its ponyfill's
      const Ctor = request.body instanceof ReadableStream ? TransformStream : fetchAPI.TransformStream;
      setRequestParser((req) => requestParser(counted(req, limit, Ctor, fetchAPI.Request)));
    },
  };
}
