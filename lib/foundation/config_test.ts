import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.ts";

Deno.test("loadConfig() reads LOG_FORMAT, LOG_SALT and METRICS_TOKEN", () => {
  const token = "t0k-0123456789ab";
  const config = loadConfig({ LOG_FORMAT: "text", LOG_SALT: "pepper", METRICS_TOKEN: token });
  assert.equal(config.logFormat, "text");
  assert.equal(config.logSalt, "pepper");
  assert.equal(config.metricsToken, token);
  const defaults = loadConfig({});
  assert.equal(defaults.logFormat, "json");
  assert.equal(defaults.metricsToken, null, "an unset token leaves /metrics off");
  assert.notEqual(defaults.logSalt, loadConfig({}).logSalt, "a random salt per process");
  assert.throws(() => loadConfig({ LOG_FORMAT: "xml" }), /LOG_FORMAT must be json, text or off/);
});

Deno.test("loadConfig() on Deno Deploy defaults to the attached KV", () => {
  assert.equal(loadConfig({ DENO_DEPLOYMENT_ID: "abc" }).kvPath, "");
  assert.equal(loadConfig({ DENO_DEPLOYMENT_ID: "abc", KV_PATH: "x.db" }).kvPath, "x.db");
  assert.equal(loadConfig({}).kvPath, "./data/kv.sqlite3");
});

Deno.test("loadConfig() refuses a METRICS_TOKEN no bearer header can carry, or a short one", () => {
  // RFC 6750 §2.1 b64token: ALPHA / DIGIT / - . _ ~ + / then =; issue #19 named @ ! # % and space.
  for (const ch of ["@", "!", "#", "%", " ", ":", '"', ",", "é", "=x"]) {
    const value = `abcdefgh${ch}ijklmnop`;
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: value }),
      (err: Error) =>
        err instanceof ConfigError &&
        /^METRICS_TOKEN may hold only letters, digits/.test(err.message) &&
        !err.message.includes(value),
      JSON.stringify(value),
    );
  }
  for (const value of ["x", "abc", "0123456789abcde"]) {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: value }),
      new RegExp(
        `^ConfigError: METRICS_TOKEN must be at least 16 characters, got ${value.length}\\.`,
      ),
    );
  }
  for (const ok of ["0123456789abcdef", "a-b.c_d~e+f/ghijklmn==", "A".repeat(64)]) {
    assert.equal(loadConfig({ METRICS_TOKEN: ok }).metricsToken, ok);
  }
  assert.equal(loadConfig({ METRICS_TOKEN: "" }).metricsToken, null, "empty leaves it off");
});

Deno.test("loadConfig() reads KV_DEADLINE_MS (default 5000) and refuses a bad one by name", () => {
  assert.equal(loadConfig({}).kvDeadlineMs, 5000);
  assert.equal(loadConfig({ KV_DEADLINE_MS: "750" }).kvDeadlineMs, 750);
  for (const bad of ["abc", "0", "49", "1.5", "600001", "-5"]) {
    assert.throws(
      () => loadConfig({ KV_DEADLINE_MS: bad }),
      /KV_DEADLINE_MS must be an integer from 50 to 600000/,
      `KV_DEADLINE_MS=${JSON.stringify(bad)}`,
    );
  }
});

Deno.test("loadConfig() reads RATE_LIMIT_FLUSH_MS: 10 on a KV file, 50 on a remote KV, a bad one refused by name", () => {
  assert.equal(loadConfig({}).rateLimitFlushMs, 10);
  assert.equal(loadConfig({ KV_PATH: ":memory:" }).rateLimitFlushMs, 10);
  assert.equal(
    loadConfig({ KV_URL: "https://api.deno.com/v2/databases/x/connect" }).rateLimitFlushMs,
    50,
  );
  assert.equal(loadConfig({ KV_URL: "http://10.0.0.5:4512" }).rateLimitFlushMs, 50);
  assert.equal(loadConfig({ DENO_DEPLOYMENT_ID: "abc" }).rateLimitFlushMs, 50, "Deploy's own KV");
  assert.equal(
    loadConfig({ KV_URL: "http://10.0.0.5:4512", RATE_LIMIT_FLUSH_MS: "25" }).rateLimitFlushMs,
    25,
  );
  for (const bad of ["0", "-5", "2.5", "10001", "fast"]) {
    assert.throws(
      () => loadConfig({ RATE_LIMIT_FLUSH_MS: bad }),
      /RATE_LIMIT_FLUSH_MS must be an integer from 1 to 10000/,
      `RATE_LIMIT_FLUSH_MS=${JSON.stringify(bad)}`,
    );
  }
});

Deno.test("loadConfig() reads the reminder settings and refuses a VAPID contact push services cannot use", () => {
  const base = { BASE_URL: "http://localhost:8000" };
  assert.equal(loadConfig(base).reminderPollMs, 30_000);
  assert.equal(loadConfig({ ...base, REMINDER_POLL_SECONDS: "2" }).reminderPollMs, 2_000);
  assert.throws(() => loadConfig({ ...base, REMINDER_POLL_SECONDS: "0" }), /REMINDER_POLL_SECONDS/);
  // RFC 8292 §2.1: `sub` is a mailto: or https: URI
  assert.equal(loadConfig(base).pushContact, "mailto:admin@localhost");
  assert.equal(
    loadConfig({ BASE_URL: "https://tracker.example.org" }).pushContact,
    "https://tracker.example.org",
  );
  assert.equal(
    loadConfig({ ...base, PUSH_CONTACT: "mailto:ops@example.org" }).pushContact,
    "mailto:ops@example.org",
  );
  assert.throws(() => loadConfig({ ...base, PUSH_CONTACT: "http://x.example" }), /PUSH_CONTACT/);
  assert.equal(loadConfig(base).pushAllowLoopbackHttp, false);
});
