/**
 * Null calibration and power of `get_trend` and `get_correlation` at the windows the service uses
 * (issue #20 item 2): under AR(0.5) nulls built like real logs (lib/analytics/_real_log_members.ts)
 * at 14, 28, 60 and 90 days, how often a stated p is < 0.05 and ≤ 0.001, and how often a moderate
 * real trend / correlation at 90 days is found. The computations are the tools' own
 * (`computeTrend`, `correlate`). Seeded: the same run prints the same figures.
 *
 *   deno run -A scripts/calibrate_nulls.ts [members per window, default 2000]
 */

import { calibrationRun, formatCalibration } from "../lib/analytics/_calibration.ts";

const members = Number(Deno.args[0] ?? 2000);
console.log(formatCalibration(calibrationRun({ members, windows: [14, 28, 60, 90], power: 500 })));
