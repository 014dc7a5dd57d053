/**
 * `deno task admin <command> …`: operator commands on the same KV the service uses (KV_PATH /
 * KV_URL, as `deno task start` reads them). Safe while the service runs: every change is a
 * checked `kv.atomic()`, exactly as the service's own writes are. Subcommands are a table, so more
 * can be added (issue #14) without touching the dispatcher.
 */

import { systemClock } from "../lib/foundation/clock.ts";
import { type Config, ConfigError, loadConfig } from "../lib/foundation/config.ts";
import { AppError } from "../lib/foundation/errors.ts";
import { runCoach } from "../lib/coach/run.ts";
import { setTier, type Tier } from "../lib/coach/tier.ts";
import {
  BackupRefused,
  kvFileOf,
  restoreBackupFile,
  unfinishedRestore,
  unfinishedRestoreMessage,
  writeBackupFile,
} from "../lib/operations/backup.ts";
import {
  DATA_FORMAT_VERSION,
  DataFormatError,
  migrate,
  newerFormatMessage,
  readDataFormat,
} from "../lib/operations/migrations.ts";
import {
  deleteMember,
  eachMember,
  kvStats,
  listMembersPage,
  MAX_MEMBER_PAGE,
  memberIdOf,
  type MemberRow,
  resetPassword,
} from "../lib/operations/members.ts";
import { openKv } from "../lib/operations/kv_open.ts";
import { writeRecordSnapshots } from "../lib/operations/record_snapshots.ts";

/** One admin subcommand. */
interface Command {
  usage: string;
  summary: string;
  /**
   * Which data formats it works on: `any` (reads, backup, restore, migrate), `not-newer` (writes
   * whose fields every format has), `current` (needs what the migrations add, e.g. the session
   * index that ending a member's sessions relies on).
   */
  formats: "any" | "not-newer" | "current";
  run(kv: Deno.Kv, args: string[], config: Config): Promise<void>;
}

function fail(message: string): never {
  throw new AppError("invalid_request", message);
}

/** Exactly one argument (a username or a file), or the usage. */
function one(args: string[], usage: string): string {
  if (args.length !== 1 || args[0].startsWith("-")) fail(`Usage: deno task admin ${usage}`);
  return args[0];
}

/** No argument, or the usage. */
function none(args: string[], usage: string): void {
  if (args.length) fail(`Usage: deno task admin ${usage}`);
}

const pad = (s: string, n: number) => s.padEnd(n);

/** `--limit N` and `--after USERNAME` of `admin members` (no limit: every page, streamed). */
function memberPageArgs(args: string[], usage: string) {
  const out: { limit: number | null; after?: string } = { limit: null };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined || value.startsWith("-")) fail(`Usage: deno task admin ${usage}`);
    if (flag === "--limit") {
      const limit = Number(value);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMBER_PAGE) {
        fail(`--limit takes a whole number from 1 to ${MAX_MEMBER_PAGE}, not "${value}".`);
      }
      out.limit = limit;
    } else if (flag === "--after") out.after = value;
    else fail(`Usage: deno task admin ${usage}`);
  }
  return out;
}

/** Prints one row of `admin members`; returns 1 (the count). */
function printMember(r: MemberRow): number {
  console.log(
    `${pad(r.username, 24)} ${r.createdAt.slice(0, 10)} ` +
      `${pad(r.lastActive?.slice(0, 10) ?? "—", 10)} ${pad(r.tier, 22)} ` +
      `${String(r.entries).padStart(7)} ${String(r.columns).padStart(7)} ` +
      `${String(r.apiTokens).padStart(6)} ${String(r.sessions).padStart(8)} ` +
      `${String(r.oauthGrants).padStart(4)}`,
  );
  return 1;
}

/** Issue #14: member care, backups and migrations (the logic is in lib/operations/). */
const OPERATIONS: Record<string, Command> = {
  members: {
    usage: "members [--limit N] [--after USERNAME]",
    summary: "List members by username: created, last active, tier and counts; printed page by " +
      "page (--limit N: one page of N, and the command for the next).",
    formats: "any",
    async run(kv, args) {
      const page = memberPageArgs(args, this.usage);
      console.log(
        `${pad("username", 24)} ${pad("created", 10)} ${pad("last active", 10)} ` +
          `${pad("tier", 22)} entries columns tokens sessions apps`,
      );
      let n = 0;
      if (page.limit === null) {
        for await (const r of eachMember(kv)) n += printMember(r);
      } else {
        const { rows, next } = await listMembersPage(kv, { after: page.after, limit: page.limit });
        for (const r of rows) n += printMember(r);
        if (next) {
          console.log(`more: deno task admin members --limit ${page.limit} --after ${next}`);
        }
      }
      console.log(`${n} members`);
    },
  },
  "reset-password": {
    usage: "reset-password <username> [--keep-tokens]",
    summary: "Give a member a new one-time password (printed once) and sign out their sessions; " +
      "also end their API tokens and connected apps unless --keep-tokens.",
    formats: "current",
    async run(kv, args, config) {
      const keepTokensAndApps = args.includes("--keep-tokens");
      const username = one(args.filter((a) => a !== "--keep-tokens"), this.usage);
      const password = await resetPassword(kv, {
        username,
        iterations: config.passwordIterations,
        keepTokensAndApps,
      });
      const ended = keepTokensAndApps
        ? "every session is signed out; API tokens and connected apps are kept"
        : "every session, API token and connected app is ended";
      console.log(`${username}: ${ended}. One-time password:\n${password}`);
      console.log("Hand it over privately; the member signs in and sets a new one in Settings.");
    },
  },
  "delete-member": {
    usage: "delete-member <username>",
    summary: "Delete a member and all their data, exactly as their own account deletion does.",
    formats: "current",
    async run(kv, args) {
      const username = one(args, this.usage);
      await deleteMember(kv, username);
      console.log(`${username}: deleted (account, record, tokens, sessions and app grants).`);
    },
  },
  backup: {
    usage: "backup <file>",
    summary: "Write a consistent, gzip-compressed, checksummed backup of the whole KV.",
    formats: "any",
    async run(kv, args, config) {
      const file = one(args, this.usage);
      const h = await writeBackupFile(kv, {
        kvPath: config.kvPath,
        file,
        serviceVersion: config.version,
      });
      // A remote KV's backup leaves volatile keys out (lib/operations/backup.ts): say so.
      const scope = kvFileOf(config.kvPath) ? "" : " (durable keys only: see /docs/backups)";
      console.log(
        `${file}: ${h.entries} keys, data format ${
          h.dataFormat ?? "—"
        }, sha256 ${h.sha256}${scope}`,
      );
    },
  },
  restore: {
    usage: "restore <file>",
    summary:
      "Check a backup (checksum, format) and restore it into an empty KV; rerun to resume one.",
    formats: "any",
    async run(kv, args) {
      const file = one(args, this.usage);
      const { header, written, resumedAt } = await restoreBackupFile(kv, file);
      if (resumedAt !== null) {
        console.log(
          `Resumed an interrupted restore of this backup after ${resumedAt} of ` +
            `${header.entries} keys.`,
        );
      }
      console.log(
        `${file}: ${written} keys restored (backup of ${header.createdAt}, ` +
          `data format ${header.dataFormat ?? "—"}).`,
      );
      if (header.dataFormat !== null && header.dataFormat < DATA_FORMAT_VERSION) {
        console.log("The data is in an older format: run `deno task admin migrate` next.");
      }
      if (header.dataFormat !== DATA_FORMAT_VERSION) return;
      // Snapshots are never backed up: written now, not on each member's first visit.
      const started = performance.now();
      const pass = await writeRecordSnapshots(kv, ({ members }) => {
        if (members % 5_000 === 0) console.error(`record snapshots: ${members} members…`);
      });
      console.log(
        `Record snapshots written for ${pass.written} of ${pass.members} members in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s.`,
      );
    },
  },
  migrate: {
    usage: "migrate",
    summary: "Bring the KV's data format up to this version (back it up first).",
    formats: "not-newer",
    async run(kv, args) {
      none(args, this.usage);
      const report = await migrate(kv);
      for (const s of report.steps) {
        console.log(`step ${s.to}: ${s.summary} (${s.changed} keys changed)`);
      }
      console.log(
        report.steps.length
          ? `Data format ${report.from} → ${report.to}.`
          : `Data format ${report.to}: up to date.`,
      );
    },
  },
  stats: {
    usage: "stats",
    summary: "Counts of members, entries, tokens, sessions and keys, and the KV's size.",
    formats: "any",
    async run(kv, args, config) {
      none(args, this.usage);
      const s = await kvStats(kv, config.kvPath);
      console.log(
        `data format   ${s.dataFormat ?? "— (new KV)"} (this version: ${DATA_FORMAT_VERSION})`,
      );
      console.log(`members       ${s.members}`);
      console.log(`entries       ${s.entries}`);
      console.log(`api tokens    ${s.apiTokens}`);
      console.log(`sessions      ${s.sessions}`);
      console.log(`app grants    ${s.oauthGrants}`);
      console.log(`keys          ${s.keys}`);
      console.log(
        `kv size       ${s.fileBytes === null ? "— (remote KV)" : `${s.fileBytes} bytes`}`,
      );
    },
  },
};

const COMMANDS: Record<string, Command> = {
  tier: {
    usage: "tier <username> paid --until YYYY-MM-DD | tier <username> free",
    summary: "Set a member's membership tier (the coach's depth; nothing else changes).",
    formats: "not-newer",
    async run(kv, args) {
      const [username, tier, flag, until] = args;
      if (!username || (tier !== "paid" && tier !== "free")) fail(`Usage: ${this.usage}`);
      if (tier === "paid" && (flag !== "--until" || !until)) fail("paid needs --until YYYY-MM-DD");
      if (tier === "free" && flag !== undefined) fail("free takes no options");
      const member = await setTier(kv, systemClock, {
        username,
        tier: tier as Tier,
        until: tier === "paid" ? until : undefined,
      });
      console.log(
        `${member.username}: ${member.membership}` +
          (member.paidUntil ? ` until ${member.paidUntil}` : ""),
      );
      // Re-analyse here rather than leave it to the job setTier enqueued: a running service's
      // SQLite queue notices a message from another process only at its next poll, up to 60 s
      // later (denokv QUEUE_DEQUEUE_FALLBACK_INTERVAL; 56 s measured with three processes,
      // tests/multiprocess/freshness_test.ts), and a queueless KV polls every 30 s. The job
      // still runs, and finds this version analysed at this tier.
      const outcome = await runCoach({ kv, clock: systemClock, owner: "admin" }, member.id);
      console.log(
        outcome.status === "ran"
          ? `coach: re-analysed at ${outcome.tier} depth, ${outcome.insights.length} stored findings`
          : `coach: ${outcome.status}; the queued job re-analyses within a minute`,
      );
    },
  },
  coach: {
    usage: "coach <username>",
    summary: "Run the coach for a member now and print the stored findings.",
    formats: "not-newer",
    async run(kv, args) {
      const [username] = args;
      if (!username || args.length > 1) fail(`Usage: ${this.usage}`);
      const memberId = await memberIdOf(kv, username);
      const outcome = await runCoach({ kv, clock: systemClock, owner: "admin" }, memberId, {
        force: true,
      });
      if (outcome.status !== "ran") fail(`The coach did not run: ${outcome.status}.`);
      console.log(
        `${username}: ${outcome.tier} depth, ${outcome.testsRun} tests, ` +
          `${outcome.insights.length} stored findings`,
      );
      for (const i of outcome.insights) {
        console.log(`\n[${i.type}, priority ${i.priority}, ${i.created_at}] ${i.id}`);
        console.log(`  ${i.text}`);
        console.log(`  evidence: ${i.evidence.tool} ${JSON.stringify(i.evidence.arguments)}`);
      }
    },
  },
  ...OPERATIONS,
};

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return [
    "Usage: deno task admin <command> [arguments]",
    "",
    "Commands:",
    ...lines,
    "",
    "Uses the service's KV (KV_PATH or KV_URL; default ./data/kv.sqlite3).",
  ].join("\n");
}

/**
 * Refuses to run `command` on a KV whose data format it cannot handle, or (but `restore` and
 * `stats`) on a half-restored KV: its data is incomplete until the restore is finished.
 */
async function checkFormat(kv: Deno.Kv, command: Command): Promise<void> {
  const restore = await unfinishedRestore(kv);
  if (restore && command !== COMMANDS.restore && command !== COMMANDS.stats) {
    fail(unfinishedRestoreMessage(restore));
  }
  if (command.formats === "any") return;
  const found = await readDataFormat(kv) ?? DATA_FORMAT_VERSION;
  if (found > DATA_FORMAT_VERSION) fail(newerFormatMessage(found));
  if (command.formats === "current" && found < DATA_FORMAT_VERSION) {
    fail(
      `This KV holds data format ${found}; run \`deno task admin migrate\` (after a backup) first.`,
    );
  }
}

/** Runs one admin command line; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(help());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`Usage: deno task admin ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`error: ${err.message}`);
    return 1;
  }
  const kv = await openKv(config);
  try {
    await checkFormat(kv, command);
    await command.run(kv, args, config);
    return 0;
  } catch (err) {
    const known = err instanceof AppError || err instanceof BackupRefused ||
      err instanceof DataFormatError || err instanceof Deno.errors.NotFound;
    if (!known) throw err;
    console.error(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    kv.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
