/**
 * The service's counters, rendered in the Prometheus text exposition format (version 0.0.4) at
 * `/metrics`. Counters are per process: one module-level registry, because the code that counts
 * (the KV retry loop, the rate limiter, the coach worker) sits below any per-app dependency and a
 * scrape asks a process, not the service. Several instances are scraped one by one and summed by
 * Prometheus (docs/self-hosting). Recording is a map lookup and a few additions: no allocation but
 * the label key of a request series.
 */

/** Upper bounds of the request-latency histogram, in seconds (Prometheus convention). */
export const LATENCY_BUCKETS_S = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
] as const;

/** Methods counted under their own name; anything else is `OTHER` (bounded label values). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

interface RequestSeries {
  route: string;
  method: string;
  status: number;
  count: number;
}

interface LatencySeries {
  route: string;
  /** Non-cumulative counts per bucket; the last slot is above the largest bound (`+Inf`). */
  buckets: Float64Array;
  sumSeconds: number;
  count: number;
}

/** What a KV retry loop saw: a failed versionstamp check, or a locked/busy database. */
export type KvRetryReason = "conflict" | "busy";

/** How a coach run ended: its outcome's status (lib/coach/run.ts), or `failed` when it threw. */
export type CoachRunOutcome = string;

/** A labelled counter: label value → count, rendered in insertion order. */
class LabelledCounter {
  readonly values = new Map<string, number>();
  add(label: string, by = 1): void {
    this.values.set(label, (this.values.get(label) ?? 0) + by);
  }
}

/** The per-process registry; `metrics` below is the one the service uses. */
export class Metrics {
  readonly #requests = new Map<string, RequestSeries>();
  readonly #latency = new Map<string, LatencySeries>();
  readonly #rateLimited = new LabelledCounter();
  readonly #kvRetries = new LabelledCounter();
  readonly #kvErrors = new LabelledCounter();
  readonly #coachRuns = new LabelledCounter();
  readonly #rateLimitFlushFailures = new LabelledCounter();
  readonly #rateLimitCountsDropped = new LabelledCounter();
  readonly #startedAt = Date.now() / 1000;

  /** Counts one answered request under its route pattern (never the raw path). */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const m = KNOWN_METHODS.has(method) ? method : "OTHER";
    const key = `${status} ${m} ${route}`;
    const series = this.#requests.get(key);
    if (series) series.count++;
    else this.#requests.set(key, { route, method: m, status, count: 1 });

    let latency = this.#latency.get(route);
    if (!latency) {
      latency = {
        route,
        buckets: new Float64Array(LATENCY_BUCKETS_S.length + 1),
        sumSeconds: 0,
        count: 0,
      };
      this.#latency.set(route, latency);
    }
    let i = 0;
    while (i < LATENCY_BUCKETS_S.length && seconds > LATENCY_BUCKETS_S[i]) i++;
    latency.buckets[i]++;
    latency.sumSeconds += seconds;
    latency.count++;
  }

  /** A request refused with 429 by the quota named `policy`. */
  rateLimited(policy: string): void {
    this.#rateLimited.add(policy);
  }

  /** A KV operation retried (lib/foundation/kv_commit.ts). */
  kvRetried(reason: KvRetryReason): void {
    this.#kvRetries.add(reason);
  }

  /**
   * A KV operation that failed for good: `busy` (retries spent → 503), `full` (the disk is full →
   * 507) or `error` (anything else thrown).
   */
  kvFailed(kind: "busy" | "full" | "error"): void {
    this.#kvErrors.add(kind);
  }

  /** A rate-limiter flush that could not commit every count: `busy` (retries spent) or `error`. */
  rateLimitFlushFailed(cause: "busy" | "error"): void {
    this.#rateLimitFlushFailures.add(cause);
  }

  /** Counts of `policy` a limiter gave up after its flushes kept failing (fail open). */
  rateLimitCountsDropped(policy: string, n: number): void {
    this.#rateLimitCountsDropped.add(policy, n);
  }

  /** A coach run finished. */
  coachRun(outcome: CoachRunOutcome): void {
    this.#coachRuns.add(outcome);
  }

  /** The registry in the Prometheus text exposition format, ending with a newline. */
  render(version: string): string {
    const out: string[] = [];
    family(out, "routine_tracker_info", "gauge", "The running version; always 1.");
    out.push(`routine_tracker_info{version="${escapeLabel(version)}"} 1`);
    family(out, "process_start_time_seconds", "gauge", "Start of this process, Unix seconds.");
    out.push(`process_start_time_seconds ${this.#startedAt}`);
    this.#renderRequests(out);
    this.#renderLatency(out);
    const counters: [string, string, string, LabelledCounter][] = [
      [
        "routine_tracker_rate_limit_rejections_total",
        "Requests refused with 429, by quota.",
        "policy",
        this.#rateLimited,
      ],
      [
        "routine_tracker_kv_retries_total",
        "KV operations retried: a failed versionstamp check or a locked database.",
        "reason",
        this.#kvRetries,
      ],
      [
        "routine_tracker_kv_errors_total",
        "KV operations that failed for good: busy after every retry (503), disk full (507), or an error.",
        "kind",
        this.#kvErrors,
      ],
      [
        "routine_tracker_rate_limit_flush_failures_total",
        "Rate-limiter flushes that could not commit every count, by cause (busy or error).",
        "cause",
        this.#rateLimitFlushFailures,
      ],
      [
        "routine_tracker_rate_limit_counts_dropped_total",
        "Counted requests a rate limiter gave up after its flushes kept failing, by quota.",
        "policy",
        this.#rateLimitCountsDropped,
      ],
      [
        "routine_tracker_coach_runs_total",
        "Coach analysis runs, by outcome.",
        "outcome",
        this.#coachRuns,
      ],
    ];
    for (const [name, help, label, c] of counters) {
      counter(out, { name, help, label, values: c.values });
    }
    return out.join("\n") + "\n";
  }

  #renderRequests(out: string[]): void {
    family(
      out,
      "routine_tracker_http_requests_total",
      "counter",
      "HTTP requests answered, by route pattern, method and status.",
    );
    for (const s of this.#requests.values()) {
      out.push(
        `routine_tracker_http_requests_total{route="${
          escapeLabel(s.route)
        }",method="${s.method}",` +
          `status="${s.status}"} ${s.count}`,
      );
    }
  }

  #renderLatency(out: string[]): void {
    const name = "routine_tracker_http_request_duration_seconds";
    family(out, name, "histogram", "Time to answer a request (headers ready), by route pattern.");
    for (const s of this.#latency.values()) {
      const route = `route="${escapeLabel(s.route)}"`;
      let cumulative = 0;
      LATENCY_BUCKETS_S.forEach((bound, i) => {
        cumulative += s.buckets[i];
        out.push(`${name}_bucket{${route},le="${bound}"} ${cumulative}`);
      });
      out.push(`${name}_bucket{${route},le="+Inf"} ${s.count}`);
      out.push(`${name}_sum{${route}} ${s.sumSeconds}`);
      out.push(`${name}_count{${route}} ${s.count}`);
    }
  }
}

function family(out: string[], name: string, type: string, help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function counter(
  out: string[],
  f: { name: string; help: string; label: string; values: Map<string, number> },
): void {
  family(out, f.name, "counter", f.help);
  for (const [value, count] of f.values) {
    out.push(`${f.name}{${f.label}="${escapeLabel(value)}"} ${count}`);
  }
}

/** Label values escape `\`, `"` and newlines (exposition format "Text format details"). */
export function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (ch) => (ch === "\n" ? "\\n" : "\\" + ch));
}

/** The process's registry. */
export const metrics: Metrics = new Metrics();
