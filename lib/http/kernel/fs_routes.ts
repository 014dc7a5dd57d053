/** Fresh-style file routing: a `routes/` file path → a Hono path pattern (aesthetics.md). */

/**
 * Converts a file path relative to `routes/` into a URL pattern: `index` → `/`, `[id]` → `:id`,
 * `[...slug]` → `:slug{.+}`, `(group)` folders vanish, extensions drop.
 */
export function routePathOf(file: string): string {
  const segments = file.replace(/\.(ts|tsx)$/, "").split("/");
  const out: string[] = [];
  for (const seg of segments) {
    if (seg === "index") continue;
    if (/^\(.+\)$/.test(seg)) continue;
    const rest = /^\[\.\.\.(\w+)\]$/.exec(seg);
    if (rest) {
      out.push(`:${rest[1]}{.+}`);
      continue;
    }
    const param = /^\[(\w+)\]$/.exec(seg);
    out.push(param ? `:${param[1]}` : seg);
  }
  return "/" + out.join("/");
}

/** Sort rank: static paths before dynamic ones before catch-alls, since Hono matches in order. */
export function routeRank(path: string): number {
  if (path.includes("{.+}")) return 2;
  if (path.includes(":")) return 1;
  return 0;
}

/** Orders route paths static → dynamic → catch-all, then longer first, then alphabetically. */
export function compareRoutes(a: string, b: string): number {
  return routeRank(a) - routeRank(b) || b.split("/").length - a.split("/").length ||
    (a < b ? -1 : a > b ? 1 : 0);
}
