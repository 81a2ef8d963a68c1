/**
 * The one error type of the service. Domain code throws these; the edge middleware turns any error
 * into the contract's body {error, code, quotas, metadata}. `code` is stable, `message` is for humans.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_CURSOR: 400,
  /** An offset page past OFFSET_REACH (domain/paging.ts): the message points to the cursor. */
  PAGE_TOO_DEEP: 400,
  JOB_UPLOAD_UNUSABLE: 400,
  MATCH_INPUT_INSUFFICIENT: 400,
  API_KEY_INVALID: 401,
  LICENSE_INACTIVE: 402,
  OWNER_REQUIRED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  NO_MATCH: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The HTTP server's own answer (http/clientError.ts): the request did not arrive in time. */
  REQUEST_TIMEOUT: 408,
  MONITOR_LIMIT_REACHED: 409,
  SECRET_ALREADY_REVEALED: 409,
  SECRET_ROTATION_IN_PROGRESS: 409,
  DELIVERY_NOT_FAILED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  JOB_UPLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  /** The HTTP server's own answer (http/clientError.ts): request line and headers over the limit. */
  REQUEST_HEADERS_TOO_LARGE: 431,
  DATA_SUBJECT_BLOCKED: 451,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  LIVE_SOURCE_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers (Retry-After, Allow). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const validationError = (message: string) => new AppError('VALIDATION_ERROR', message);

/** The 451 of a withdrawn record (domain/lake/suppression.ts decides when). */
export const dataSubjectBlocked = () =>
  new AppError('DATA_SUBJECT_BLOCKED', 'This record was withdrawn under a privacy request (GDPR / CCPA) and is no longer served.');
export const notFound = (message: string) => new AppError('NOT_FOUND', message);

/** Same text for missing, malformed, unknown and revoked keys: the response must not hint which. */
export const apiKeyInvalid = () =>
  new AppError('API_KEY_INVALID', 'Missing or invalid API key. Send Authorization: Bearer ik_live_...');
