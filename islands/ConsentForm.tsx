/**
 * The consent form (Route B): names the app, where it will send the member back and what it may
 * read, with Approve and Deny. Rendered on the server as a plain HTML form that works without
 * JavaScript; hydrated in the browser only to prevent a double submission and say what happens
 * next. Props are JSON-serialisable (they travel in `data-props`).
 */

import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** What the consent screen shows and posts. */
export interface ConsentFormProps {
  /** Where the form posts: the authorization endpoint with the original query. */
  formAction: string;
  /** Single-use CSRF token bound to the member's session. */
  consentToken: string;
  /** The app's self-declared name, or null. */
  clientName: string | null;
  clientId: string;
  /** Host (or `scheme:`) of the redirect URI the code will be sent to. */
  redirectHost: string;
  /** True when the redirect goes to this computer (loopback) or a native-app scheme. */
  localRedirect: boolean;
  /** The signed-in member, so they can tell which account they are granting. */
  username: string;
  /** What the `read` scope lets the app do, one line each. */
  permissions: string[];
}

/** The consent card with its Approve / Deny form. */
/** The two answers to the consent screen, in the order shown. */
const DECISIONS = [
  { value: "approve", label: "Approve", kind: "primary" },
  { value: "deny", label: "Deny", kind: "secondary" },
] as const;

export default function ConsentForm(props: ConsentFormProps) {
  const [decision, setDecision] = useState<"approve" | "deny" | null>(null);
  const submitted = useRef(false);
  const form = useRef<HTMLFormElement>(null);
  // Marks the form once the island is live in the browser (the server render never runs effects).
  useEffect(() => form.current?.setAttribute("data-hydrated", "true"), []);
  const name = props.clientName ?? "An app that did not give its name";
  return (
    <form
      ref={form}
      class="card consent"
      method="post"
      action={props.formAction}
      onSubmit={(e) => {
        // A second click would post a consumed token and show an error page.
        if (submitted.current) e.preventDefault();
        submitted.current = true;
      }}
    >
      <h1>
        Allow <strong>{name}</strong> to read your Routine Tracker record?
      </h1>
      <p>
        Signed in as <strong>{props.username}</strong>.
      </p>
      <dl>
        <dt>App</dt>
        <dd>
          {name} <code>{props.clientId}</code>
        </dd>
        <dt>It will send you back to</dt>
        <dd>
          <code>{props.redirectHost}</code>
          {props.localRedirect ? " (an app on this computer)" : ""}
        </dd>
        <dt>It will be able to</dt>
        <dd>
          <ul>
            {props.permissions.map((p) => <li key={p}>{p}</li>)}
          </ul>
        </dd>
      </dl>
      <p class="note">
        Read-only: it cannot change or delete anything. You can disconnect it at any time under{" "}
        <a href="/app/settings#connected-apps">Settings → Connected apps</a>.
      </p>
      <input type="hidden" name="consent_token" value={props.consentToken} />
      <div class="actions">
        {DECISIONS.map(({ value, label, kind }, i) => (
          <Fragment key={value}>
            {i > 0 && " "}
            <button
              type="submit"
              name="action"
              value={value}
              class={kind}
              onClick={() => setDecision(value)}
            >
              {label}
            </button>
          </Fragment>
        ))}
      </div>
      {decision
        ? (
          <p role="status" aria-live="polite">
            {decision === "approve"
              ? `Approved. Returning you to ${name}…`
              : `Denied. Returning you to ${name}…`}
          </p>
        )
        : null}
    </form>
  );
}
