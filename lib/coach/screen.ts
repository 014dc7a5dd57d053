/**
 * The coach's statistical screen. It lives in lib/analytics/coach_screen.ts so that
 * `get_coach_insights` (a tool, below the coach) can replay the q and family size each sentence
 * states (issue #20 item 10); the coach imports it from here.
 */

export * from "../analytics/coach_screen.ts";
