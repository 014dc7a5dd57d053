/**
 * The coach's part of `deno task bench` (issue #12): one coach run for a member with 3 years × 12
 * columns (read from KV, analysed at paid depth, stored), and what the coach adds to a write —
 * nothing on the request but two `set`s (`coach_due` and its due-time index key) folded into the write's own commit.
 * Runs on its own too: `deno run -A --unstable-kv scripts/bench_coach.ts`.
 */

import process from "node:process";
import { registerMember } from "../lib/accounts/accounts.ts";
import { systemClock } from "../lib/foundation/clock.ts";
import { localDay } from "../lib/foundation/dates.ts";
import { keys } from "../lib/foundation/kv_keys.ts";
import { scheduleCoach } from "../lib/record/coach_schedule.ts";
import {
  ColumnCreate,
  createColumn,
  recordVersionEntry,
  writeEntries,
} from "../lib/record/store.ts";
import type { DayValue } from "../lib/record/types.ts";
import { runCoach } from "../lib/coach/run.ts";
import { setTier } from "../lib/coach/tier.ts";

const DAYS = 3 * 365;

const COLUMNS = [
  { key: "mood", label: "Mood", type: "scale", scale_min: 1, scale_max: 5 },
  { key: "sleep_h", label: "Sleep", type: "number", unit: "h" },
  { key: "steps", label: "Steps", type: "integer", unit: "steps" },
  { key: "workout", label: "Workout", type: "boolean" },
  { key: "meditation", label: "Meditation", type: "duration_min", unit: "min" },
  { key: "weight", label: "Weight", type: "number", unit: "kg" },
  { key: "water", label: "Water", type: "number", unit: "L" },
  { key: "medication", label: "Medication", type: "boolean" },
  { key: "resting_hr", label: "Resting HR", type: "integer", unit: "bpm" },
  { key: "coffee", label: "Coffee", type: "integer", unit: "cups" },
  { key: "screen_h", label: "Screen time", type: "number", unit: "h" },
  { key: "energy", label: "Energy", type: "scale", scale_min: 1, scale_max: 5 },
] as const;

function valuesOf(i: number, rand: () => number): Record<string, DayValue> {
  const sleep = 6 + rand() * 3;
  const workout = rand() < 0.4;
  return {
    mood: Math.min(5, Math.max(1, Math.round(sleep - 4 + rand() * 2))),
    sleep_h: Math.round(sleep * 10) / 10,
    steps: Math.round(4000 + rand() * 6000 + (workout ? 3000 : 0)),
    workout,
    meditation: Math.round(rand() * 20),
    weight: Math.round((82 - i / 200 + rand()) * 10) / 10,
    water: Math.round((1.5 + rand()) * 100) / 100,
    medication: rand() < 0.9,
    resting_hr: Math.round(55 + rand() * 10),
    coffee: Math.floor(rand() * 4),
    screen_h: Math.round(rand() * 60) / 10,
    energy: Math.min(5, Math.max(1, Math.round(1 + rand() * 4))),
  };
}

/** A member with 3 years × 12 columns on `kv`, paid (the deeper run). */
async function seed(kv: Deno.Kv): Promise<string> {
  const ctx = { kv, clock: systemClock, coachDebounceMs: 3_600_000 };
  const { memberId } = await registerMember({ kv, clock: systemClock, passwordIterations: 1000 }, {
    username: "coach_bench",
    password: "bench passphrase",
  });
  for (const c of COLUMNS) {
    await createColumn(ctx, memberId, ColumnCreate.parse(c));
  }
  await setTier(kv, systemClock, { username: "coach_bench", tier: "paid", until: "2099-12-31" });
  let seedValue = 12;
  const rand = () => (seedValue = (seedValue * 1103515245 + 12345) % 2147483648) / 2147483648;
  const today = localDay(Date.now(), "UTC");
  const rows = Array.from({ length: DAYS }, (_, i) => ({
    day: today - DAYS + i,
    values: valuesOf(i, rand),
    note: undefined,
  }));
  for (let i = 0; i < rows.length; i += 400) {
    const ok = await writeEntries(ctx, memberId, {
      versionEntry: await recordVersionEntry(kv, memberId),
      entries: rows.slice(i, i + 400).map(({ day, values }) => ({
        day,
        entry: { values, note: null, updatedAt: Date.now() },
      })),
    });
    if (!ok) throw new Error("bench seed write failed");
  }
  return memberId;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Commit time of a typical entry write with and without the coach's two folded operations. */
async function writeShare(kv: Deno.Kv, memberId: string): Promise<[number, number]> {
  const plain: number[] = [], withCoach: number[] = [];
  for (let i = 0; i < 200; i++) {
    for (const coach of [false, true]) {
      const op = kv.atomic()
        .set(keys.entry(memberId, 1_000_000 + i), {
          values: { steps: i },
          note: null,
          updatedAt: 0,
        })
        .sum(keys.recordVersion(memberId), 1n);
      if (coach) scheduleCoach(op, memberId, { now: Date.now(), debounceMs: 3_600_000 });
      const t0 = performance.now();
      await op.commit();
      (coach ? withCoach : plain).push(performance.now() - t0);
    }
  }
  return [median(plain), median(withCoach)];
}

/** Lines for the bench report. */
export async function benchCoach(): Promise<string[]> {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const memberId = await seed(kv);
    const times: number[] = [], cpu: number[] = [];
    let tests = 0, stored = 0;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now(), c0 = process.cpuUsage();
      const out = await runCoach({ kv, clock: systemClock, owner: "bench" }, memberId, {
        force: true,
      });
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (out.status === "ran") [tests, stored] = [out.testsRun, out.insights.length];
    }
    const [plain, withCoach] = await writeShare(kv, memberId);
    return [
      `coach run, 3 years × 12 columns, paid depth (read + analyse + store): median ${
        median(times.slice(2)).toFixed(0)
      } ms, best ${Math.min(...times.slice(2)).toFixed(0)} ms of 5 after 2 warm-up runs; ` +
      `CPU time median ${median(cpu.slice(2)).toFixed(0)} ms (wall time includes waiting for ` +
      `a core on a loaded machine) ` +
      `(${tests} tests, ${stored} findings; target < 200 ms)`,
      `coach share of a write: 0 coach runs on the request; its two sets ride in the ` +
      `write's own commit: median commit ${plain.toFixed(2)} ms without, ${
        withCoach.toFixed(2)
      } ms with (file KV, 200 each)`,
    ];
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) { for (const line of await benchCoach()) console.log(line); }
