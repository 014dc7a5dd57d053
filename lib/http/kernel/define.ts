/** Route-module typing: every `routes/` file exports `handler = define.handlers({...})`. */

import type { Context } from "hono";
import type { DateLocale } from "../../accounts/accounts.ts";
import type { AppDeps } from "./deps.ts";
import type { DeprecationStatus } from "../../policy/deprecation.ts";
import type { RateLimitOutcome } from "../../policy/rate_limit.ts";

/** Per-request variables set by the common middleware. */
export interface AppVariables {
  deps: AppDeps;
  requestId: string;
  /** The client's address as IP-keyed quotas count it: IPv6 by its /64 (lib/http/kernel/client_ip.ts). */
  clientIp: string;
  /** The quota this request spent or read, for the `RateLimit` headers. */
  rateLimit?: RateLimitOutcome;
  /** Set when the endpoint, action or tool of this request is deprecated (DESIGN §12). */
  deprecation?: DeprecationStatus;
  /** The member the request authenticated as, for the request log (hashed there, never raw). */
  memberId?: string;
  /** The signed-in member's date locale (issue #25), which the page response renders with. */
  dateLocale?: DateLocale;
  /** Set when the client hung up mid-body (lib/http/kernel/body.ts). */
  clientAborted?: boolean;
  /** `performance.now()` when the common steps began, for the request's duration. */
  startedAt: number;
}

/** Hono environment of the app. */
export interface AppEnv {
  Variables: AppVariables;
  Bindings: { remoteAddr?: { hostname?: string } } | undefined;
}

/** The context handlers receive. */
export type AppContext = Context<AppEnv>;

/** A handler for one HTTP method. */
export type RouteHandler = (c: AppContext) => Response | Promise<Response>;

/** HTTP methods a route file may export. */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Handlers of one route file, by method. */
export type RouteHandlers = Partial<Record<HttpMethod, RouteHandler>>;

/** What a route module exports. */
export interface RouteModule {
  handler: RouteHandlers;
}

const REFUSES = Symbol("answers 405");

/**
 * Marks a handler that exists only to refuse its method in the route's own error shape (MCP's
 * JSON-RPC 405): main.ts leaves its method out of `Allow`, which lists only methods the resource
 * supports (RFC 9110 §10.2.1).
 */
export function refusal(handler: RouteHandler): RouteHandler {
  return Object.assign(handler, { [REFUSES]: true });
}

/** Whether a handler was made by `refusal`. */
export function isRefusal(handler: RouteHandler | undefined): boolean {
  return handler !== undefined && REFUSES in handler;
}

/** Helpers that keep route files typed. */
export const define = {
  /** Declares a route file's handlers. */
  handlers(handlers: RouteHandlers): RouteHandlers {
    return handlers;
  },
};
