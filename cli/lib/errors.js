// @ts-check
/** Exit codes, documented in the CLI page of the service's docs. */
export const EXIT = Object.freeze({
  OK: 0,
  /** The request failed: network, server, or a tool result with isError. */
  FAILURE: 1,
  /** Usage: unknown command, option, tool or argument; a value of the wrong type. */
  USAGE: 2,
  /** The token was missing or refused (401/403). */
  AUTH: 3,
  /** Rate limited (429). */
  RATE_LIMITED: 4,
});

/** An expected failure: its message is printed as is, and the process exits with `exitCode`. */
export class CliError extends Error {
  /**
   * @param {string} message what went wrong and what to do about it
   * @param {number} exitCode one of `EXIT`
   */
  constructor(message, exitCode = EXIT.FAILURE) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
