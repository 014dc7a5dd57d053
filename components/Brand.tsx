/** The product mark and name, linking home. */

/** The logo: a ring of days with a check, in the accent colour (decorative). */
export function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <circle cx="16" cy="16" r="13" fill="none" stroke="var(--accent)" stroke-width="4" />
      <path
        d="M10 16.5l4 4 8-9"
        fill="none"
        stroke="var(--accent)"
        stroke-width="3.5"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  );
}

/** The brand link of every header. */
export function Brand({ href = "/" }: { href?: string }) {
  return (
    <a class="brand" href={href}>
      <Logo />
      Routine Tracker
    </a>
  );
}
