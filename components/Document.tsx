/**
 * The `<html>` document every page shares: viewport (zoom never blocked, WCAG 1.4.4), colour
 * scheme, the one stylesheet, the web app manifest and theme colours (installable, issue #11).
 */

import type { ComponentChildren } from "preact";
import type { Theme } from "../lib/accounts/accounts.ts";

/** The browser chrome's colour in each scheme (the `theme-color` meta, the manifest's too). */
const THEME_COLOR = { light: "#3451b2", dark: "#121316" } as const;

/** Props of `Document`. */
export interface DocumentProps {
  title: string;
  description?: string;
  /**
   * The member's colour scheme (issue #25): `system` (the default, and every signed-out page)
   * follows the device's `prefers-color-scheme`; `light` or `dark` is fixed by `data-theme` on
   * `<html>`, which static/styles.css reads. Server-rendered: it needs no JavaScript.
   */
  theme?: Theme;
  children: ComponentChildren;
}

/** `<html>` with the shared head; `children` is the body's content. */
export function Document({ title, description, theme = "system", children }: DocumentProps) {
  const fixed = theme === "system" ? null : theme;
  return (
    <html lang="en" data-theme={fixed ?? undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content={fixed ?? "light dark"} />
        <title>{`${title} · Routine Tracker`}</title>
        {description ? <meta name="description" content={description} /> : null}
        {fixed ? <meta name="theme-color" content={THEME_COLOR[fixed]} /> : (
          <>
            <meta
              name="theme-color"
              content={THEME_COLOR.light}
              media="(prefers-color-scheme: light)"
            />
            <meta
              name="theme-color"
              content={THEME_COLOR.dark}
              media="(prefers-color-scheme: dark)"
            />
          </>
        )}
        <link rel="manifest" href="/static/manifest.webmanifest" />
        <link rel="icon" href="/static/icons/icon.svg" type="image/svg+xml" />
        <link rel="apple-touch-icon" href="/static/icons/icon-192.png" />
        <link rel="stylesheet" href="/static/styles.css" />
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        {children}
      </body>
    </html>
  );
}
