/**
 * `deno task admin <command> …`: operator commands on the same KV the service uses (KV_PATH /
 * KV_URL, as `deno task start` reads them). Safe while the service runs: every change is a
 * checked `kv.atomic()`, exactly as the service's own writes are. Subcommands are a table, so more
 * can be added (issue #14) without touching the dispatcher.
 */

import { systemClock } from "../lib/foundation/clock.ts";
import { loadConfig } from "../lib/foundation/config.ts";
import { AppError } from "../lib/foundation/errors.ts";
import { keys } from "../lib/foundation/kv_keys.ts";
import { runCoach } from "../lib/coach/run.ts";
import { setTier, type Tier } from "../lib/coach/tier.ts";
import { openKv } from "../main.ts";

/** One admin subcommand. */
interface Command {
  usage: string;
  summary: string;
  run(kv: Deno.Kv, args: string[]): Promise<void>;
}

function fail(message: string): never {
  throw new AppError("invalid_request", message);
}

async function memberIdOf(kv: Deno.Kv, username: string): Promise<string> {
  const id = await kv.get<string>(keys.username(username.toLowerCase()));
  if (!id.value) throw new AppError("not_found", `No member is named "${username}".`);
  return id.value;
}

const COMMANDS: Record<string, Command> = {
  tier: {
    usage: "tier <username> paid --until YYYY-MM-DD | tier <username> free",
    summary: "Set a member's membership tier (the coach's depth; nothing else changes).",
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
    },
  },
  coach: {
    usage: "coach <username>",
    summary: "Run the coach for a member now and print the stored findings.",
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
  const kv = await openKv(loadConfig());
  try {
    await command.run(kv, args);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(`error: ${err.message}`);
    return 1;
  } finally {
    kv.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
