/**
 * Guesses at a password, counted per username (issue #19): every function that checks a password
 * spends one guess first, under the `password` quota of lib/policy/rate_limit.ts, and a right
 * password gives its guess back, so the quota counts wrong passwords only. Once they are spent,
 * even the right password is refused until the window has passed: otherwise an attacker with many
 * addresses would only have to keep guessing (OWASP Authentication Cheat Sheet, "Account
 * Lockout"). The count is kept whether or not the username exists, before the account is looked
 * up, so a refusal — its status, message and timing — tells nothing about which names exist.
 */

import { hashSecret } from "../foundation/secrets.ts";

/**
 * Where guesses are counted; the HTTP layer builds it on the service's rate limiter
 * (lib/http/kernel/rate_limit.ts `passwordGuessesOf`), so a refusal carries the RateLimit headers.
 */
export interface PasswordGuesses {
  /**
   * Counts one guess at the password of `username` (as `usernameSubject` gives it) and resolves to
   * what gives it back; throws `rate_limited` (429) once its guesses are spent.
   */
  spend(username: string): Promise<() => Promise<void>>;
}

/**
 * The counter's subject for `username`: usernames are looked up case-insensitively
 * (lib/accounts/accounts.ts), so counted so too, and under a SHA-256 of the name rather than the
 * name itself, so the KV (and every backup of it) never holds the names someone typed — a guessed
 * name that is no account's, or a password typed into the name field — nor keeps a deleted
 * member's username in a counter that outlives the account.
 */
export function usernameSubject(username: string): string {
  return `u-${hashSecret(username.toLowerCase()).slice(0, 32)}`;
}
