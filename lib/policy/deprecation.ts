/**
 * The deprecation registry and its rules (spec "States and transitions", DESIGN §12).
 *
 * Lifecycle: active → deprecated (`Deprecation` header + `rel="deprecation"` Link) → sunset
 * scheduled (`Sunset` header, `rel="successor-version"` where a replacement exists) → retired
 * (410). Notice periods: ≥ 90 days from the first `Deprecation` header to the Sunset date being
 * published, ≥ 180 days from publication to the Sunset moment, and Sunset never before
 * Deprecation. HTTP-free: `lib/http/kernel/common_headers.ts` writes the headers.
 */

/** What a registry entry deprecates. */
export type DeprecationKind = "endpoint" | "action" | "tool";

/** One deprecated endpoint (`/api/…` path), action (`/api/proxy#getEntries`) or tool (name). */
export interface Deprecation {
  kind: DeprecationKind;
  /** Path for endpoints, `path#action` for actions, tool name for tools. */
  target: string;
  /** When the `Deprecation` header is first served (ISO 8601 UTC). */
  deprecatedAt: string;
  /** When the `Sunset` date is first published in headers (ISO 8601 UTC). */
  sunsetPublishedAt?: string;
  /** The moment the target stops responding (ISO 8601 UTC). */
  sunsetAt?: string;
  /** Absolute path of the replacement, if any (`rel="successor-version"`). */
  successor?: string;
  /** One line for the changelog. */
  note: string;
}

/**
 * The registry in force. Empty: as of version date 2026-08-22 nothing is deprecated (spec
 * "Versioning" 10). Add an entry here and a line in `content/docs/changelog.md` together.
 */
export const DEPRECATIONS: readonly Deprecation[] = [];

const DAY_MS = 86_400_000;
/** Minimum days between the first Deprecation header and publishing a Sunset date. */
export const MIN_DAYS_TO_SUNSET_NOTICE = 90;
/** Minimum days between publishing the Sunset date and the Sunset moment. */
export const MIN_DAYS_SUNSET_NOTICE = 180;

/** Checks every rule of the lifecycle; returns the violations (empty when the registry is valid). */
export function validateDeprecations(entries: readonly Deprecation[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const id = `${e.kind} ${e.target}`;
    if (seen.has(id)) problems.push(`${id}: listed twice`);
    seen.add(id);
    const dep = Date.parse(e.deprecatedAt);
    if (Number.isNaN(dep)) {
      problems.push(`${id}: deprecatedAt is not a date`);
      continue;
    }
    if ((e.sunsetAt === undefined) !== (e.sunsetPublishedAt === undefined)) {
      problems.push(`${id}: sunsetAt and sunsetPublishedAt go together`);
      continue;
    }
    if (e.sunsetAt === undefined || e.sunsetPublishedAt === undefined) continue;
    const published = Date.parse(e.sunsetPublishedAt);
    const sunset = Date.parse(e.sunsetAt);
    if (Number.isNaN(published) || Number.isNaN(sunset)) {
      problems.push(`${id}: sunset dates are not dates`);
      continue;
    }
    if (sunset < dep) problems.push(`${id}: Sunset is earlier than Deprecation`);
    if (published - dep < MIN_DAYS_TO_SUNSET_NOTICE * DAY_MS) {
      problems.push(
        `${id}: Sunset published ${
          Math.floor((published - dep) / DAY_MS)
        } days after deprecation; at least ${MIN_DAYS_TO_SUNSET_NOTICE} required`,
      );
    }
    if (sunset - published < MIN_DAYS_SUNSET_NOTICE * DAY_MS) {
      problems.push(
        `${id}: Sunset is ${
          Math.floor((sunset - published) / DAY_MS)
        } days after its publication; at least ${MIN_DAYS_SUNSET_NOTICE} required`,
      );
    }
    if (e.successor !== undefined && !e.successor.startsWith("/")) {
      problems.push(`${id}: successor must be an absolute path`);
    }
  }
  return problems;
}

/** Throws when the registry breaks a rule, so a bad registry never starts serving. */
export function assertValidDeprecations(entries: readonly Deprecation[]): void {
  const problems = validateDeprecations(entries);
  if (problems.length > 0) {
    throw new Error(`Deprecation registry refused:\n- ${problems.join("\n- ")}`);
  }
}

/** What a deprecated target answers with at one instant. */
export interface DeprecationStatus {
  /** `@<epoch seconds>` (RFC 9745 sf-date) once deprecated. */
  deprecationHeader: string;
  /** HTTP-date in GMT (RFC 8594) once the Sunset date is published. */
  sunsetHeader?: string;
  successor?: string;
  /** True once the Sunset moment has passed: the target answers 410. */
  retired: boolean;
}

/** The headers and state of `entry` at `nowMs`, or `null` before it is deprecated. */
export function deprecationStatus(entry: Deprecation, nowMs: number): DeprecationStatus | null {
  const dep = Date.parse(entry.deprecatedAt);
  if (nowMs < dep) return null;
  const status: DeprecationStatus = {
    deprecationHeader: `@${Math.floor(dep / 1000)}`,
    retired: false,
  };
  if (entry.sunsetAt && entry.sunsetPublishedAt && nowMs >= Date.parse(entry.sunsetPublishedAt)) {
    // toUTCString() yields the IMF-fixdate form with "GMT", as RFC 9110 §5.6.7 requires.
    status.sunsetHeader = new Date(Date.parse(entry.sunsetAt)).toUTCString();
    status.successor = entry.successor;
    status.retired = nowMs >= Date.parse(entry.sunsetAt);
  }
  return status;
}

/** Index of a registry by `kind` and target, for one lookup per request. */
export class DeprecationIndex {
  readonly #byKey = new Map<string, Deprecation>();
  readonly entries: readonly Deprecation[];

  constructor(entries: readonly Deprecation[]) {
    assertValidDeprecations(entries);
    this.entries = entries;
    for (const e of entries) this.#byKey.set(`${e.kind}\0${e.target}`, e);
  }

  /** True when nothing is deprecated (the common case: the middleware does no work). */
  get isEmpty(): boolean {
    return this.#byKey.size === 0;
  }

  /** The entry for a target, if any. */
  find(kind: DeprecationKind, target: string): Deprecation | undefined {
    return this.#byKey.get(`${kind}\0${target}`);
  }
}
