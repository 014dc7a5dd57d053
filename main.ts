/**
 * Builds the Routine Tracker app from injected dependencies (KV, clock, config). As a program it
 * serves that app from the environment two ways: `deno task start` (`deno run`) listens by itself
 * on `PORT`; `deno serve [--parallel] main.ts` serves the default export. Importing it (tests)
 * opens no KV and listens nowhere.
 */

import { Hono } from "hono";
import { routes } from "./manifest.gen.ts";
import { type Clock, systemClock } from "./lib/foundation/clock.ts";
import { type Config, ConfigError, loadConfig } from "./lib/foundation/config.ts";
import { MemberAccess } from "./lib/record/member_access.ts";
import type { AppDeps } from "./lib/http/kernel/deps.ts";
import { type Deprecation, DeprecationIndex, DEPRECATIONS } from "./lib/policy/deprecation.ts";
import { ResultCache } from "./lib/mcp/result_cache.ts";
import { commonMiddleware, commonSteps } from "./lib/http/kernel/common_headers.ts";
import { type AppEnv, type HttpMethod, isRefusal } from "./lib/http/kernel/define.ts";
import { errorResponse } from "./lib/http/kernel/errors.ts";
import { logError, logEvent, RequestLog, setEventLogFormat } from "./lib/foundation/log.ts";
import { methodNotAllowedResponse, notFoundResponse } from "./lib/http/web/pages.ts";
import { servedByDenoServe, shutDownOnSignal } from "./lib/http/kernel/serve_mode.ts";
import { RateLimiter } from "./lib/policy/rate_limit.ts";
import { coachPoll, registerCoachCron, startCoachWorker } from "./lib/coach/worker.ts";
import { checkDataFormat, DataFormatError } from "./lib/operations/migrations.ts";
import { reminderPoll, startReminderWorker } from "./lib/notify/reminder_poll.ts";
import { mailerFor } from "./lib/notify/mail.ts";
import { ensureVapidKeys } from "./lib/notify/vapid.ts";
import { isCommonPassword } from "./lib/accounts/common_passwords.ts";
import { openKv } from "./lib/operations/kv_open.ts";
import {
  type ClientMetadataFetcher,
  defaultClientMetadataFetcher,
} from "./lib/oauth/client_metadata_document.ts";

/** What `createApp` needs; everything but `kv` and `config` has a default. */
export interface CreateAppOptions {
  kv: Deno.Kv;
  config: Config;
  clock?: Clock;
  /** The deprecation registry (tests pass fixtures); refused at start-up if it breaks a rule. */
  deprecations?: readonly Deprecation[];
  rateLimiter?: RateLimiter;
  /** Fetches OAuth Client ID Metadata Documents; tests inject one (no public network). */
  clientMetadataFetcher?: ClientMetadataFetcher;
  /** Where request lines go; default from `config.logFormat` (stdout, or none when `off`). */
  requestLog?: RequestLog | null;
}

/** The built app plus what its owner must close. */
export interface App {
  fetch: (request: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  /** `app.request(path, init)` for in-process tests. */
  request: (input: string | URL | Request, init?: RequestInit) => Response | Promise<Response>;
  deps: AppDeps;
  /** Flushes pending counters; call before closing the KV. */
  close(): Promise<void>;
}

const METHODS: HttpMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** Builds the app. Throws if the deprecation registry breaks the 90/180-day rules. */
export function createApp(options: CreateAppOptions): App {
  const clock = options.clock ?? systemClock;
  const deps: AppDeps = {
    kv: options.kv,
    clock,
    config: options.config,
    rateLimiter: options.rateLimiter ??
      new RateLimiter(options.kv, clock, {
        multiplier: options.config.rateLimitMultiplier,
        flushIntervalMs: options.config.rateLimitFlushMs,
      }),
    deprecations: new DeprecationIndex(options.deprecations ?? DEPRECATIONS),
    access: new MemberAccess(options.kv, clock, options.config.recordCacheBytes),
    clientMetadataFetcher: options.clientMetadataFetcher ?? defaultClientMetadataFetcher,
    requestLog: options.requestLog !== undefined
      ? options.requestLog
      : requestLogOf(options.config),
    mcpResults: new ResultCache(options.config.resultCacheBytes),
  };
  setEventLogFormat(options.config.logFormat);

  const app = new Hono<AppEnv>();
  const steps = commonSteps(deps);
  app.use(commonMiddleware(steps));

  for (const { path, module } of routes) {
    // The /api/v1 alias reaches exactly the same handlers (spec "Endpoints").
    const paths = path.startsWith("/api/") ? [path, "/api/v1/" + path.slice(5)] : [path];
    // A method whose handler only refuses it (MCP's GET) is not one the path allows.
    const allowed = METHODS.filter((m) => module.handler[m] && !isRefusal(module.handler[m]));
    if (allowed.includes("GET") && !module.handler.HEAD) allowed.push("HEAD");
    for (const p of paths) {
      for (const method of METHODS) {
        const handle = module.handler[method] ??
          (method === "HEAD" ? module.handler.GET : undefined);
        if (handle) app.on(method, p, handle);
      }
      app.all(p, (c) => methodNotAllowedResponse(c, allowed));
    }
  }

  app.notFound(notFoundResponse);
  app.onError((err, c) => errorResponse(c, err));

  const fetch = (request: Request, info?: Deno.ServeHandlerInfo) => app.fetch(request, info);
  return {
    fetch,
    request: (input, init) => {
      const request = input instanceof Request
        ? (init ? new Request(input, init) : input)
        : new Request(new URL(String(input), "http://localhost"), init);
      return fetch(request);
    },
    deps,
    close: async () => {
      await deps.rateLimiter.close();
      await deps.access.close();
      deps.requestLog?.flush();
    },
  };
}

/** The request log `config.logFormat` asks for. */
function requestLogOf(config: Config): RequestLog | null {
  if (config.logFormat === "off") return null;
  return new RequestLog({ format: config.logFormat, salt: config.logSalt });
}

/**
 * Start-up refuses a KV in a data format other than the code's (issue #14): a newer one was
 * written by a newer version; an older one is migrated by the operator after a backup
 * (`deno task admin migrate`, lib/operations/migrations.ts). A new KV is stamped current.
 */
async function refuseOtherDataFormat(kv: Deno.Kv): Promise<void> {
  try {
    await checkDataFormat(kv);
  } catch (err) {
    if (!(err instanceof DataFormatError)) throw err;
    logEvent("error", err.message, {});
    kv.close();
    Deno.exit(78); // EX_CONFIG (sysexits.h): the unit's RestartPreventExitStatus can name it
  }
}

/**
 * The configuration from the environment; a setting it cannot use (issue #19: e.g. a
 * `METRICS_TOKEN` no client could send) stops the process with one line naming the variable and
 * exit 78 (EX_CONFIG, sysexits.h), not a stack trace.
 */
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logEvent("error", `Refusing to start: ${err.message}`, {});
    Deno.exit(78);
  }
}

/** What the reminders' poll needs from this process. */
function notifyOf(kv: Deno.Kv, config: Config) {
  return {
    kv,
    clock: systemClock,
    pushContact: config.pushContact,
    mailer: mailerFor(config.smtp),
    baseUrl: config.baseUrl,
  };
}

/** The app built from the environment (config + KV), once per process or `deno serve` worker. */
interface Running {
  app: App;
  kv: Deno.Kv;
  config: Config;
}

let running: Promise<Running> | undefined;
let ready: App | undefined;

/** Builds the app from the environment on first use: importing this module opens nothing. */
function runningFromEnv(): Promise<Running> {
  return running ??= (async () => {
    const config = configOrExit();
    const kv = await openKv(config);
    await refuseOtherDataFormat(kv);
    const app = createApp({ kv, config });
    // Builds the common-password set now (~30 ms), not on the first sign-up (issue #19).
    isCommonPassword("");
    // The VAPID key pair is made on first start (issue #24; RFC 8292), so every instance signs
    // with the one key the browsers subscribed with.
    await ensureVapidKeys(kv);
    // Every instance (process or `deno serve` worker) polls the coach's due-time index on a
    // timer, one at a time under a lease (DESIGN §15) — except on Deploy, where Deno.cron does.
    if (!cronDriven) {
      startCoachWorker({ kv, clock: systemClock, pollMs: config.coachPollMs }).catch((err) =>
        logError("coach worker stopped", err)
      );
      // Reminders poll their own due-time index the same way (lib/notify/reminder_poll.ts).
      startReminderWorker({ ...notifyOf(kv, config), pollMs: config.reminderPollMs }).catch((
        err,
      ) => logError("reminder worker stopped", err));
    }
    ready = app;
    return { app, kv, config };
  })().catch((err) => {
    // A start that failed (e.g. the KV did not answer in time) is tried again by the next request
    // under `deno serve`, rather than failing every request for good.
    running = undefined;
    throw err;
  });
}

/**
 * On Deno Deploy the coach's poll is a `Deno.cron` job, registered when the module loads (Deploy
 * finds crons defined at the top level); it builds the app from the environment on first run.
 * Elsewhere (tests import this module) nothing is registered.
 */
const deploymentId = Deno.env.get("DENO_DEPLOYMENT_ID");
const cronDriven = registerCoachCron(
  { deploymentId, pollMs: deploymentId ? loadConfig().coachPollMs : 0 },
  async () => {
    const { kv, config } = await runningFromEnv();
    return await Promise.all([
      coachPoll({ kv, clock: systemClock }),
      reminderPoll(notifyOf(kv, config)),
    ]);
  },
);

/**
 * What `deno serve` serves (`deno serve -A --unstable-kv --parallel main.ts`): the app built from
 * the environment, in every worker. `deno run` serves the same app by itself (below).
 */
export default {
  fetch(request: Request, info: Deno.ServeHandlerInfo): Response | Promise<Response> {
    if (ready) return ready.fetch(request, info);
    return runningFromEnv().then(({ app }) => app.fetch(request, info));
  },
} satisfies Deno.ServeDefaultExport;

if (import.meta.main) {
  const served = servedByDenoServe();
  const { app, kv, config } = await runningFromEnv();
  served.then((underDenoServe) => {
    if (underDenoServe) {
      shutDownOnSignal({ close: () => app.close(), kv });
      return;
    }
    const server = Deno.serve({
      port: config.port,
      onListen: ({ port }) =>
        logEvent("info", `Routine Tracker ${config.version} listening`, {
          url: `http://localhost:${port}`,
          baseUrl: config.baseUrl,
        }),
    }, app.fetch);
    shutDownOnSignal({ close: () => app.close(), kv, server });
  });
}
