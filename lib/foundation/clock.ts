/** The clock is injected everywhere so tests can move time (issue #2 §3). */

/** Returns the current time in milliseconds since the Unix epoch. */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();

/** A clock tests can set and advance. */
export interface ManualClock {
  (): number;
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to an absolute time. */
  set(ms: number): void;
}

/** Creates a `ManualClock` starting at `startMs`. */
export function manualClock(startMs = Date.UTC(2026, 10, 22, 12)): ManualClock {
  let now = startMs;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (ms) => {
    now = ms;
  };
  return clock;
}
