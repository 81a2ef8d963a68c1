/**
 * The dashboard talks to the server only through the typed client of clients/typescript (the same
 * contract as every integrator). No API key: the HttpOnly session cookie authenticates each call.
 */
import { createEnrichClient, requestIdOf, type Schemas } from '../../clients/typescript/src/index';

export const api = createEnrichClient({ baseUrl: `${window.location.origin}/api/v1` });
export type { Schemas };

/** An error answer of the API, as the pages show it: code, message, request id, wait time. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

export const SIGNED_OUT_EVENT = 'enrich:signed-out';

/** Unwraps an openapi-fetch answer: the body, or an ApiProblem (and a 401 signs the page out). */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await pending;
  } catch (err) {
    throw new ApiProblem(0, 'NETWORK_ERROR', `The server could not be reached (${(err as Error).message}).`, null, null);
  }
  const { data, error, response } = answer;
  if (response.ok && data !== undefined) return data;
  const body = (error ?? {}) as { code?: string; error?: string; metadata?: { request_id?: string } };
  const retry = response.headers.get('Retry-After');
  const problem = new ApiProblem(
    response.status,
    body.code ?? `HTTP_${response.status}`,
    body.error ?? response.statusText,
    body.metadata?.request_id ?? requestIdOf(response),
    retry === null ? null : Number(retry),
  );
  if (response.status === 401) window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  throw problem;
}
