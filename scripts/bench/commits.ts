/**
 * KV commits per record write, counted in the KV file itself: Deno KV's SQLite backend bumps the
 * one row of `data_version` once per committed atomic operation, whichever process commits, and
 * stamps every key it writes with that version. Triggers added to the file (sqlite3 CLI) log both,
 * so a commit that wrote only `rate_limit` counters (the limiter's batched flush) is told apart
 * from the write's own commit, with no counter inside the service.
 */

import { postJson, registerWriter, startGroup } from "./processes.ts";

/** `["rate_limit", …]` in Deno KV's key encoding: 0x02, the UTF-8 string, 0x00. */
const RATE_LIMIT_PREFIX = "X'02726174655F6C696D697400'";

const TRIGGERS = `
CREATE TABLE IF NOT EXISTS bench_commit(version INTEGER);
CREATE TABLE IF NOT EXISTS bench_write(version INTEGER, limiter INTEGER);
CREATE TRIGGER IF NOT EXISTS bench_c AFTER UPDATE ON data_version
  BEGIN INSERT INTO bench_commit VALUES (new.version); END;
CREATE TRIGGER IF NOT EXISTS bench_i AFTER INSERT ON kv BEGIN
  INSERT INTO bench_write VALUES (new.version, substr(new.k, 1, 12) = ${RATE_LIMIT_PREFIX}); END;
CREATE TRIGGER IF NOT EXISTS bench_u AFTER UPDATE ON kv BEGIN
  INSERT INTO bench_write VALUES (new.version, substr(new.k, 1, 12) = ${RATE_LIMIT_PREFIX}); END;
DELETE FROM bench_commit; DELETE FROM bench_write;
`;

const COUNT = `
SELECT
  (SELECT count(*) FROM bench_commit),
  (SELECT count(*) FROM bench_commit c WHERE EXISTS
     (SELECT 1 FROM bench_write w WHERE w.version = c.version)
   AND NOT EXISTS (SELECT 1 FROM bench_write w WHERE w.version = c.version AND w.limiter = 0));
`;

async function sqlite(path: string, sql: string): Promise<string> {
  const out = await new Deno.Command("sqlite3", {
    args: ["-cmd", ".timeout 10000", path, sql],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`sqlite3: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Commits per `saveEntry` with `instances` processes on one KV, writes spread round-robin. */
async function commitsPerWrite(instances: number, writes: number): Promise<string> {
  const group = await startGroup({ count: instances });
  try {
    const urls = group.processes.map((p) => p.url);
    const session = await registerWriter(urls[0], "committer");
    // Every instance has served this member (and read their record) before counting starts.
    for (const url of urls) {
      await postJson(`${url}/api/proxy`, {
        action: "getEntries",
        start: "2025-01-01",
        end: "2025-12-31",
      }, session);
    }
    await new Promise((r) => setTimeout(r, 200)); // let the limiters' flushes land
    await sqlite(group.kvPath, TRIGGERS);
    const day = Date.UTC(2025, 0, 1);
    for (let i = 0; i < writes; i++) {
      const date = new Date(day + i * 86_400_000).toISOString().slice(0, 10);
      await postJson(`${urls[i % urls.length]}/api/proxy`, {
        action: "saveEntry",
        date,
        values: { steps: 1000 + i },
      }, session);
    }
    await new Promise((r) => setTimeout(r, 200));
    const [total, limiter] = (await sqlite(group.kvPath, COUNT)).split("|").map(Number);
    const own = (total - limiter) / writes;
    return `| ${instances} | ${writes} | ${own.toFixed(2)} | ${(limiter / writes).toFixed(2)} | ${
      own <= 2 ? "✓" : "✗"
    } |`;
  } finally {
    await group.stop();
  }
}

/** The commits table: 1 and 4 instances. */
export async function commitsSection(writes = 200): Promise<string[]> {
  return [
    "\nKV commits per record write (saveEntry via /api/proxy, counted by triggers in the KV file;",
    "target: 1, plus at most one to enqueue coach work, whatever the number of instances)\n",
    "| instances | writes | commits per write (write + its enqueues) | limiter flush commits per write | target |",
    "|---|---|---|---|---|",
    await commitsPerWrite(1, writes),
    await commitsPerWrite(4, writes),
  ];
}
