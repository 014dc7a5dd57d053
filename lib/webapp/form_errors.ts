/** How a page reports a form's errors: the first message of each field, beside that field. */

import type { z } from "zod";

/** Errors of a form by field name (`_form`: not tied to one field). */
export type FormErrors = Record<string, string>;

/** The form's fields with the first message of each, from a zod error. */
export function fieldErrors(error: z.ZodError): FormErrors {
  const out: FormErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_form");
    out[field] ??= issue.message;
  }
  return out;
}
