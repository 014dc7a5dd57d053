/**
 * The one error type of the service. Every expected failure is an `AppError` with a stable code;
 * `lib/http/kernel/errors.ts` turns it into the REST envelope `{error, code, requestId}` (DESIGN §5), the
 * MCP layer into a JSON-RPC error or an `isError` tool result. No HTTP here.
 */

import { z } from "zod";

/** Every stable error code, its HTTP status and what it means. Feeds the `errors` docs page. */
export const ERROR_TABLE = {
  invalid_request: { status: 400, meaning: "The request body or parameters failed validation." },
  invalid_json: { status: 400, meaning: "The body is not well-formed JSON." },
  unknown_action: { status: 400, meaning: "The `action` field names no action of this endpoint." },
  unauthorized: { status: 401, meaning: "No credential was sent, or it is not valid." },
  invalid_token: { status: 401, meaning: "The bearer token is unknown, expired or revoked." },
  forbidden: { status: 403, meaning: "The credential is valid but may not do this." },
  insufficient_scope: { status: 403, meaning: "The token lacks the scope this operation needs." },
  invalid_credentials: {
    status: 401,
    meaning: "Username or password is wrong (the service does not say which).",
  },
  session_required: {
    status: 403,
    meaning: "An API token was sent where a signed-in session is needed (e.g. to mint tokens).",
  },
  invalid_scope: {
    status: 400,
    meaning: "A requested scope is unknown; the only scope is `read`.",
  },
  too_many_tokens: {
    status: 409,
    meaning: "The member already holds the maximum number of API tokens; revoke one first.",
  },
  already_created: {
    status: 409,
    meaning:
      "A token was already created under this Idempotency-Key (a resubmitted form); it is not shown again.",
  },
  unknown_column: { status: 400, meaning: "No column has that key." },
  column_exists: { status: 409, meaning: "A column with that key already exists." },
  too_many_columns: {
    status: 409,
    meaning: "The member already has the maximum number of columns.",
  },
  invalid_value: { status: 400, meaning: "A value does not fit its column's type or range." },
  invalid_date: {
    status: 400,
    meaning: "A date is not a real YYYY-MM-DD calendar date or lies in the future.",
  },
  import_rejected: {
    status: 422,
    meaning: "Some CSV rows failed validation; nothing was written. See `rejected`.",
  },
  not_available: { status: 501, meaning: "The action exists but is not offered yet." },
  email_not_configured: {
    status: 409,
    meaning: "This service sends no e-mail (`SMTP_URL` is not set); the operator resets passwords.",
  },
  invalid_link: {
    status: 400,
    meaning: "An e-mailed link is unknown, expired or already used; ask for a new one.",
  },
  // OAuth 2.1 / RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2: the wire `error` is the code itself.
  invalid_client: {
    status: 401,
    meaning: "OAuth: the client_id is unknown or may not use this endpoint.",
  },
  invalid_grant: {
    status: 400,
    meaning:
      "OAuth: the code or refresh token is invalid, expired, revoked, already used or issued to another client.",
  },
  unauthorized_client: {
    status: 400,
    meaning: "OAuth: this client did not register the grant type it asked for.",
  },
  unsupported_grant_type: {
    status: 400,
    meaning: "OAuth: grant_type is not authorization_code or refresh_token.",
  },
  unsupported_response_type: { status: 400, meaning: "OAuth: response_type must be code." },
  invalid_target: {
    status: 400,
    meaning: "OAuth: `resource` does not name this server's MCP endpoint (RFC 8707).",
  },
  invalid_redirect_uri: {
    status: 400,
    meaning: "OAuth registration: a redirect URI is not acceptable (RFC 7591).",
  },
  invalid_client_metadata: {
    status: 400,
    meaning: "OAuth registration: a metadata field is not acceptable (RFC 7591).",
  },
  access_denied: { status: 403, meaning: "OAuth: the member denied the request." },
  unknown_metric: { status: 400, meaning: "No column has that key; see `did_you_mean`." },
  range_too_large: { status: 400, meaning: "A date range spans more than 366 days." },
  not_found: { status: 404, meaning: "No such resource or path." },
  method_not_allowed: { status: 405, meaning: "The path exists but not for this HTTP method." },
  conflict: { status: 409, meaning: "A concurrent change won; retry the request." },
  username_taken: { status: 409, meaning: "That username is already registered." },
  gone: { status: 410, meaning: "The endpoint, action or tool was retired after its Sunset date." },
  payload_too_large: { status: 413, meaning: "The body is larger than the endpoint accepts." },
  unsupported_media_type: { status: 415, meaning: "The body must be sent as application/json." },
  rate_limited: {
    status: 429,
    meaning: "A rate-limit quota is spent; wait `Retry-After` seconds.",
  },
  internal: { status: 500, meaning: "An unexpected fault; quote the requestId to support." },
  unavailable: { status: 503, meaning: "Storage is unreachable; retry shortly." },
  service_busy: {
    status: 503,
    meaning:
      "Storage is busy with concurrent changes or did not answer in time. Wait `Retry-After`. " +
      "Nothing was changed, unless the message says a change may or may not have been saved.",
  },
  // RFC 4918 §11.5 507 Insufficient Storage: "unable to store the representation needed to
  // successfully complete the request". Reads still work; it lasts until the operator frees space.
  storage_full: {
    status: 507,
    meaning: "The service's disk is full; nothing was changed. Reading works; try writing later.",
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** A stable, machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** Extra machine-readable fields some errors carry (e.g. `retryAfterSeconds`). */
export type ErrorDetails = Record<string, unknown>;

/** An expected failure with a stable code. Messages never contain health data. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  constructor(
    code: ErrorCode,
    message: string,
    options?: ErrorOptions & { details?: ErrorDetails },
  ) {
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

/**
 * The REST error envelope `{error, code, requestId}` (DESIGN §5) as lib/http/kernel/errors.ts writes it;
 * some codes add machine-readable fields (`details`, e.g. `actions`, `retryAfterSeconds`).
 */
export const ErrorEnvelope = z.object({
  error: z.string().meta({ description: "Human-readable message; never health data." }),
  code: z.enum(Object.keys(ERROR_TABLE) as [ErrorCode, ...ErrorCode[]]).meta({
    description: "Stable machine-readable code; the errors page lists each with its status.",
  }),
  requestId: z.string().meta({ description: "The X-Request-Id of the response; quote it." }),
}).loose();
