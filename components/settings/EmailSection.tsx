/**
 * Settings → E-mail (issue #24): the member's address, verified by a link mailed to it. A plain
 * `<form method="post">` to `/app/settings/email`, so it works without JavaScript. Pure: plain
 * serialisable props in, markup out (the Settings island renders it as it is).
 */

import { Button, CsrfField, Field } from "../form.tsx";

/** Props of `EmailSection`. */
export interface EmailSectionProps {
  csrfToken: string;
  /** Whether the operator set `SMTP_URL`: without it the service sends no mail. */
  mailConfigured: boolean;
  /** The verified address, or null. */
  email: string | null;
  /** An address waiting for its link to be opened, or null. */
  pending: string | null;
  /** What was typed, when the form is shown again with an error. */
  value?: string;
  error?: string;
}

/** What the member's address is and what it is for. */
function AddressState(p: EmailSectionProps) {
  return (
    <>
      <p>
        {p.email
          ? (
            <>
              Your verified address is{" "}
              <strong>{p.email}</strong>. It is used for password resets and, if you choose them,
              e-mail reminders.
            </>
          )
          : "No verified address yet. With one, you can reset a forgotten password yourself."}
      </p>
      {p.pending
        ? (
          <p class="notice info" role="status">
            Waiting for you to open the link we sent to <strong>{p.pending}</strong>
            {p.email ? "; until then the verified address stays in use" : ""}. The link works for 24
            hours.
          </p>
        )
        : null}
    </>
  );
}

/** The section. */
export function EmailSection(p: EmailSectionProps) {
  return (
    <section class="card settings-section" id="email" aria-labelledby="email-h">
      <h2 id="email-h">E-mail</h2>
      {p.mailConfigured
        ? (
          <>
            <AddressState {...p} />
            <form method="post" action="/app/settings/email#email" novalidate>
              <CsrfField token={p.csrfToken} />
              <Field
                name="email"
                type="email"
                label={p.email ? "New e-mail address" : "E-mail address"}
                autocomplete="email"
                spellcheck={false}
                autocapitalize="none"
                maxLength={254}
                value={p.value ?? ""}
                hint="We send a link to it; the address counts once you open the link."
                error={p.error}
                required
              />
              <Button variant="primary">Send verification link</Button>
            </form>
          </>
        )
        : (
          <p>
            This service sends no e-mail: its operator has not set it up. If you forget your
            password, the operator can reset it for you.
          </p>
        )}
    </section>
  );
}
