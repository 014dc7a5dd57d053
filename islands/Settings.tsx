/**
 * The Settings island (issue #25; the service's design card: "a small Preact island renders the
 * consent and Settings screens"). The page body is components/SettingsPage.tsx, rendered on the
 * server inside the app shell and fully working without JavaScript; this entry hydrates it with
 * the same props (JSON in `data-props`), adding Copy, confirm() before revoking, the device's zone
 * and inline form checks. scripts/build_islands.ts bundles it into static/build/Settings.js.
 */

import { SettingsPage, type SettingsPageProps } from "../components/SettingsPage.tsx";

export type { SettingsPageProps };

/** The hydrated Settings body. */
export default function Settings(props: SettingsPageProps) {
  return <SettingsPage {...props} />;
}
