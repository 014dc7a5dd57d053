/**
 * The one error type of the service. Every expected failure is an `AppError` with a stable code;
 * `lib/http/errors.ts` turns it into the REST envelope `{error, code, requestId}` (DESIGN §5), the
 * MCP layer into a JSON-RPC error or an `isError` tool result. No HTTP here.
 */

/** Every stable error code, its HTTP status and what it means. Feeds the `errors` docs page. */
export const ERROR_TABLE = {
  invalid_request: { status: 400, meaning: "The request body or parameters failed validation." },
  invalid_json: { status: 400, meaning: "The body is not well-formed JSON." },
  unknown_action: { status: 400, meaning: "The `action` field names no action of this endpoint." },
  unauthorized: { status: 401, meaning: "No credential was sent, or it is not valid." },
  invalid_token: { status: 401, meaning: "The bearer token is unknown, expired or revoked." },
  forbidden: { status: 403, meaning: "The credential is valid but may not do this." },
  insufficient_scope: { status: 403, meaning: "The token lacks the scope this operation needs." },
  unknown_metric: { status: 400, meaning: "No column has that key; see `did_you_mean`." },
  range_too_large: { status: 400, meaning: "A date range spans more than 366 days." },
  not_found: { status: 404, meaning: "No such resource or path." },
  method_not_allowed: { status: 405, meaning: "The path exists but not for this HTTP method." },
  conflict: { status: 409, meaning: "A concurrent change won; retry the request." },
  username_taken: { status: 409, meaning: "That username is already registered." },
  gone: { status: 410, meaning: "The endpoint, action or tool was retired after its Sunset date." },
  payload_too_large: { status: 413, meaning: "The body is larger than the endpoint accepts." },
  unsupported_media_type: { status: 415, meaning: "The body must be sent as application/json." },
  rate_limited: { status: 429, meaning: "A rate-limit quota is spent; wait `Retry-After` seconds." },
  internal: { status: 500, meaning: "An unexpected fault; quote the requestId to support." },
  unavailable: { status: 503, meaning: "Storage is unreachable; retry shortly." },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** A stable, machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** Extra machine-readable fields some errors carry (e.g. `retryAfterSeconds`). */
export type ErrorDetails = Record<string, unknown>;

/** An expected failure with a stable code. Messages never contain health data. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions & { details?: ErrorDetails }) {
    super(message, options);
    this.name = "AppError";
    this.code = code;
    this.details = options?.details;
  }

  /** The HTTP status the error table assigns to this code. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}
