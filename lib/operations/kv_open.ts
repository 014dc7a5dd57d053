/**
 * Opening the service's KV, shared by the service (main.ts) and `deno task admin`. It lives here,
 * not in main.ts, so the admin commands do not load the whole web app (~30 MB of RSS, measured in
 * issue #19 against the backup's memory bound).
 */

import type { Config } from "../foundation/config.ts";
import { withKvDeadline } from "../foundation/kv_deadline.ts";

/** Opens the KV named by the config, creating the folder of a file path. */
export async function openKv(config: Config): Promise<Deno.Kv> {
  const path = config.kvPath;
  // Deno's remote client never gives up on a call: a deadline of our own answers 503 instead of
  // hanging (issue #21). A local file needs none: its calls fail or answer, they do not hang.
  if (path === "") return withKvDeadline(await Deno.openKv(), config.kvDeadlineMs);
  const remote = /^https?:\/\//.test(path);
  if (path !== ":memory:" && !remote) {
    const dir = path.replace(/[^/]*$/, "");
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  if (!remote) return await Deno.openKv(path);
  // No KV gets an enqueue (KV Connect and the new Deploy have no queues): the coach polls its
  // due-time index on every KV (lib/coach/worker.ts).
  return withKvDeadline(await Deno.openKv(path), config.kvDeadlineMs);
}
