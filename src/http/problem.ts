// RFC 9457 problem details as a response.
import { problem, type ErrorCode, type ParameterProblem } from '../request/errors.js';

export function problemResponse(
  code: ErrorCode,
  detail: string,
  errors?: ParameterProblem[],
  headers: Record<string, string> = {},
): Response {
  const body = problem(code, detail, errors);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}
