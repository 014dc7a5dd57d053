/**
 * The `<html>` document every page shares: viewport (zoom never blocked, WCAG 1.4.4), colour
 * scheme, the one stylesheet, the web app manifest and theme colours (installable, issue #11).
 */

import type { ComponentChildren } from "preact";

/** Props of `Document`. */
export interface DocumentProps {
  title: string;
  description?: string;
  children: ComponentChildren;
}

/** `<html>` with the shared head; `children` is the body's content. */
export function Document({ title, description, children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${title} · Routine Tracker`}</title>
        {description ? <meta name="description" content={description} /> : null}
        <meta name="theme-color" content="#3451b2" media="(prefers-color-scheme: light)" />
        <meta name="theme-color" content="#121316" media="(prefers-color-scheme: dark)" />
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
