/**
 * Where a server-rendered island goes on a page (DESIGN §2, issue #25): its markup, its props
 * beside it as JSON for hydration (`data-props`), and its bundle (scripts/build_islands.ts writes
 * `/static/build/<name>.js`). One mount for Settings, Reminders and any island after them.
 */

import type { ComponentChildren } from "preact";

/** Props of `IslandMount`: the island's name (its file in islands/), its props and its markup. */
export interface IslandMountProps {
  name: string;
  props: unknown;
  children: ComponentChildren;
}

/** An island's server-rendered markup with what its bundle needs to hydrate it. */
export function IslandMount(p: IslandMountProps) {
  return (
    <>
      <div data-island={p.name} data-props={JSON.stringify(p.props)}>{p.children}</div>
      <script type="module" src={`/static/build/${p.name}.js`}></script>
    </>
  );
}
