// The page's only way to the API: a GraphQL query as a GET to /graphql, so answers are cached like every
// other GET of the service (ETag, Cache-Control) and back/forward re-shows a page without a request.
import type { TypedDocumentString } from '../gql/graphql.js';

export interface ParameterProblem {
  /** The argument the message is about (amount, horizon…), or null for the request as a whole. */
  parameter: string | null;
  message: string;
  /** The API could not read the value at all (not a number, not one of its values), so no rule applies. */
  unreadable?: boolean;
}

/** What the API said was wrong, in its own words (problems.ts says it the page's way). */
export class ApiError extends Error {
  constructor(readonly problems: ParameterProblem[]) {
    super(problems.map((p) => (p.parameter ? `${p.parameter}: ${p.message}` : p.message)).join('; '));
    this.name = 'ApiError';
  }
}

interface GraphQLErrorBody {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; errors?: { parameter: string; message: string }[] };
}

// A variable the API could not read is reported as `Variable "$amount" got invalid value "x"; <why>`;
// the page's variables are named like the arguments, so the name says which field it is about.
const VARIABLE_ERROR = /^Variable "\$(\w+)" got invalid value .*?; (.*)$/s;

export function problemsOf(errors: GraphQLErrorBody[]): ParameterProblem[] {
  return errors.flatMap((error): ParameterProblem[] => {
    // A variable the API could not read at all fails before any rule is checked, and says so.
    const variable = VARIABLE_ERROR.exec(error.message);
    const unreadable = variable ? { unreadable: true } : {};
    const listed = error.extensions?.errors;
    if (listed?.length) return listed.map((e) => ({ parameter: e.parameter, message: e.message, ...unreadable }));
    if (variable) return [{ parameter: variable[1]!, message: variable[2]!, unreadable: true }];
    return [{ parameter: null, message: error.message }];
  });
}

const compact = new Map<unknown, string>();
/** The document without its indentation: shorter URLs (the page's documents hold no string literals). */
function text(document: TypedDocumentString<unknown, unknown>): string {
  let value = compact.get(document);
  if (value === undefined) {
    value = document.toString().replace(/\s+/g, ' ').trim();
    compact.set(document, value);
  }
  return value;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Revalidate with the service instead of using the browser's cached answer (polling). */
  fresh?: boolean;
}

function urlOf(document: TypedDocumentString<unknown, unknown>, variables: unknown): string {
  return `/graphql?${new URLSearchParams({ query: text(document), variables: JSON.stringify(variables) })}`;
}

async function send<TResult>(url: string, options: RequestOptions): Promise<TResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      // application/json: errors come with 200 and their body, so a refused amount is no failed request.
      headers: { accept: 'application/json' },
      signal: options.signal,
      cache: options.fresh ? 'no-cache' : 'default',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError([{ parameter: null, message: 'The service could not be reached. Please try again.' }]);
  }
  let body: { data?: TResult | null; errors?: GraphQLErrorBody[] };
  try {
    body = (await response.json()) as typeof body;
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError([
      { parameter: null, message: `The service answered ${response.status} without a GraphQL result.` },
    ]);
  }
  // An error on a root field (an unknown offer, a refused argument) is the answer's; an error deeper down
  // (a detail whose history the database could not give) leaves the rest to show.
  const errors = body.errors ?? [];
  if (body.data == null || errors.some((e) => !e.path || e.path.length === 1)) {
    throw new ApiError(problemsOf(errors.length ? errors : [{ message: `The service answered ${response.status}.` }]));
  }
  return body.data;
}

const early = new Map<string, Promise<unknown>>();

/** Starts a request before the page has rendered; the first request() for the same query takes it over. */
export function preload<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
): void {
  const url = urlOf(document as TypedDocumentString<unknown, unknown>, variables);
  const started = send<TResult>(url, {});
  started.catch(() => undefined); // reported to whoever takes it over
  early.set(url, started);
}

export function request<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  options: RequestOptions = {},
): Promise<TResult> {
  const url = urlOf(document as TypedDocumentString<unknown, unknown>, variables);
  const started = early.get(url);
  if (started && !options.fresh) {
    early.delete(url);
    return started as Promise<TResult>;
  }
  return send<TResult>(url, options);
}
