/**
 * Form primitives shared by every page (DESIGN §14, webapp-anchors §5): a field with its label,
 * hint and error beside it (`aria-describedby`, `aria-invalid`), buttons, an error summary linking
 * to the fields, notices, and the hidden CSRF field every POST form carries.
 */

import type { ComponentChildren, JSX } from "preact";

/** Errors of a form, by field name (`_form` for one not tied to a field). */
export type FieldErrors = Record<string, string | undefined>;

/** Props of `Field`: the input's own attributes plus label, hint and error. */
export type FieldProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "label"> & {
  name: string;
  label: ComponentChildren;
  /** The element id; defaults to `f-<name>`. */
  id?: string;
  hint?: ComponentChildren;
  error?: string;
  /** Text after the input (a unit), read as part of the description. */
  unit?: string;
  /** Render a `<select>` with these options instead of an `<input>`. */
  options?: { value: string; label: string }[];
};

/** The ids a field's description is made of. */
function describedBy(id: string, p: { hint?: unknown; error?: string; unit?: string }) {
  const ids = [p.unit ? `${id}-unit` : "", p.hint ? `${id}-hint` : "", p.error ? `${id}-error` : ""]
    .filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

/** A labelled input (or select) with its hint and, when invalid, its error right beside it. */
export function Field(props: FieldProps) {
  const { name, label, hint, error, unit, options, id: givenId, value, ...rest } = props;
  const id = givenId ?? `f-${name}`;
  const common = {
    id,
    name,
    "aria-describedby": describedBy(id, { hint, error, unit }),
    "aria-invalid": error ? ("true" as const) : undefined,
  };
  const control = options
    ? (
      <select {...common} {...(rest as JSX.SelectHTMLAttributes<HTMLSelectElement>)}>
        {options.map((o) => (
          <option key={o.value} value={o.value} selected={o.value === value}>{o.label}</option>
        ))}
      </select>
    )
    : <input {...common} value={value} {...rest} />;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {unit
        ? (
          <div class="unit-input">
            {control}
            <span class="unit" id={`${id}-unit`}>{unit}</span>
          </div>
        )
        : control}
      {hint ? <span class="hint" id={`${id}-hint`}>{hint}</span> : null}
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
    </div>
  );
}

/** Props of `Button`. */
export type ButtonProps = JSX.ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "danger" | "quiet";
};

/** A button; `type` defaults to submit (forms work without JavaScript). */
export function Button({ variant, type, children, ...rest }: ButtonProps) {
  return (
    <button type={type ?? "submit"} class={variant} {...rest}>
      {children}
    </button>
  );
}

/** The hidden per-session form token (lib/http/web/browser_session.ts `verifyFormPost`). */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}

/** The messages at the top of a failed form, each linking to its field (`f-<name>` ids). */
export function ErrorSummary(
  { errors, idOf }: { errors: FieldErrors; idOf?: (name: string) => string },
) {
  const list = Object.entries(errors).filter((e): e is [string, string] => !!e[1]);
  if (list.length === 0) return null;
  return (
    <div class="notice error error-summary" role="alert" tabIndex={-1} id="error-summary">
      <strong>
        {list.length === 1 ? "There is a problem" : `There are ${list.length} problems`}
      </strong>
      <ul>
        {list.map(([name, message]) => (
          <li key={name}>
            {name === "_form"
              ? message
              : <a href={`#${idOf ? idOf(name) : `f-${name}`}`}>{message}</a>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A status message (a flash after a redirect, an empty state, a warning). */
export function Notice(
  { kind = "info", children }: { kind?: "info" | "success" | "error"; children: ComponentChildren },
) {
  return (
    <div class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
