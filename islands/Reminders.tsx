/**
 * The Reminders island (issue #25): the body of `/app/settings/reminders` is
 * components/RemindersPage.tsx, rendered on the server inside the app shell and fully working
 * without JavaScript; this entry hydrates it with the same props (JSON in `data-props`), adding
 * this device's push switch, the test reminder answered in place and the form's inline check.
 * scripts/build_islands.ts bundles it into static/build/Reminders.js; it replaces
 * `static/reminders.js`.
 */

import { RemindersPage, type RemindersPageProps } from "../components/RemindersPage.tsx";

export type { RemindersPageProps };

/** The hydrated Reminders body. */
export default function Reminders(props: RemindersPageProps) {
  return <RemindersPage {...props} />;
}
