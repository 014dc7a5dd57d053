/**
 * Request bodies against a real service process (issue #9 items 5 and 6): a 400 MB upload to the
 * authorization endpoint is refused early without being buffered, and a client that hangs up
 * mid-body is one short log line, never an internal error with a stack.
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { abortMidBody, memoryOf, rawUpload } from "./_raw_http.ts";

const MB = 1024 * 1024;
const UPLOAD_BYTES = 400 * MB;

Deno.test("POST /api/oauth/authorize", async (t) => {
  await using procs = await startProcesses({ count: 1 });
  const [url] = procs.urls;
  const [pid] = procs.pids;
  const form = { Origin: url, "Content-Type": "application/x-www-form-urlencoded" };
  // Warm the path once so start-up allocations are not counted against the upload.
  const warm = await rawUpload({
    url,
    path: "/api/oauth/authorize",
    headers: form,
    bodyBytes: 1 * MB,
    chunked: true,
  });
  assert.equal(warm.status, 413);
  const before = memoryOf(pid);

  for (const chunked of [true, false]) {
    await t.step(
      `a 400 MB ${chunked ? "chunked" : "Content-Length"} upload is 413 without buffering`,
      async () => {
        const res = await rawUpload({
          url,
          path: "/api/oauth/authorize",
          headers: form,
          bodyBytes: UPLOAD_BYTES,
          chunked,
        });
        assert.equal(res.status, 413, res.head);
        assert.match(res.head, /content-type: text\/html/i);
        const after = memoryOf(pid);
        const growth = after.peak - before.rss;
        console.log(
          `${chunked ? "chunked" : "Content-Length"}: sent ${
            (res.sentBytes / MB).toFixed(0)
          } MB; RSS ${(before.rss / MB).toFixed(1)} → ${(after.rss / MB).toFixed(1)} MB, peak ${
            (after.peak / MB).toFixed(1)
          } MB`,
        );
        assert.ok(growth < 50 * MB, `RSS peak grew by ${(growth / MB).toFixed(1)} MB`);
      },
    );
  }

  await t.step("a cross-site upload is refused before its body is read", async () => {
    const res = await rawUpload({
      url,
      path: "/api/oauth/authorize",
      headers: { ...form, Origin: "https://evil.example" },
      bodyBytes: UPLOAD_BYTES,
      chunked: true,
    });
    assert.equal(res.status, 403, res.head);
    assert.ok(memoryOf(pid).peak - before.rss < 50 * MB);
  });
});

/**
 * Routes that read a body, each with the headers that get it as far as reading (`/api/tokens`
 * authenticates first, so an anonymous body there is never read at all).
 */
function abortTargets(url: string): [string, Record<string, string>][] {
  const json = { "Content-Type": "application/json" };
  return [
    ["/api/proxy", json],
    ["/api/auth", json],
    ["/api/sandbox", { ...json, Accept: "application/json" }],
    ["/api/oauth/register", json],
    ["/api/oauth/token", { "Content-Type": "application/x-www-form-urlencoded" }],
    ["/api/oauth/authorize", { Origin: url, "Content-Type": "application/x-www-form-urlencoded" }],
  ];
}

Deno.test("POST /api/* with a client that hangs up mid-body", async (t) => {
  await using procs = await startProcesses({ count: 1 });
  const [url] = procs.urls;
  const targets = abortTargets(url);
  const rounds = 4; // half with a declared length, half chunked
  for (let i = 0; i < rounds; i++) {
    for (const [path, headers] of targets) {
      await abortMidBody(url, path, { headers, chunked: i % 2 === 1 });
    }
  }
  const expected = rounds * targets.length;
  // Each abort is the request's own log line with `aborted: true` (issue #14: one JSON line per
  // request, the route pattern rather than the path).
  const aborted = () =>
    procs.output(0).split("\n").filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "request" && l.aborted === true);
  // Wait until every abort has been noticed (the server sees each hang-up asynchronously).
  for (let waited = 0; aborted().length < expected && waited < 300; waited++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  // A request after the aborts: any late extra line would have been written by now.
  const health = await fetch(`${url}/api/proxy`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ action: "healthCheck" }),
  });
  await health.body?.cancel();
  const output = procs.output(0);

  await t.step("each abort is exactly one request line naming the request and route", () => {
    const lines = aborted();
    assert.equal(lines.length, expected, output);
    for (const [path] of targets) {
      const mine = lines.filter((l) => l.route === path);
      assert.equal(mine.length, rounds, `${path}:\n${output}`);
      for (const line of mine) {
        assert.equal(line.method, "POST");
        assert.match(line.requestId as string, /^[0-9a-f-]{36}$/);
      }
    }
  });

  await t.step("no stack trace and no internal error", () => {
    assert.doesNotMatch(output, /^\s+at /m, output);
    assert.doesNotMatch(output, /internal error|failed:|Error:/i, output);
  });
});
