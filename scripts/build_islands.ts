/**
 * Bundles every island under `islands/` for the browser with `deno bundle` into `static/build/`
 * (`deno task build`; `deno task start` runs it first). Each bundle hydrates the server-rendered
 * elements marked `data-island="<Name>"` with the JSON in their `data-props`.
 */

const ROOT = new URL("../", import.meta.url);

/** Builds `static/build/<Island>.js` for every `islands/<Island>.tsx`; returns the names. */
export async function buildIslands(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("islands/", ROOT))) {
    if (/^[A-Z]\w*\.tsx$/.test(entry.name)) names.push(entry.name.slice(0, -4));
  }
  await Deno.mkdir(new URL("static/build/", ROOT), { recursive: true });
  const tmp = await Deno.makeTempDir({
    dir: new URL("islands/", ROOT).pathname,
    prefix: "_entry_",
  });
  try {
    for (const name of names.sort()) {
      const entry = `${tmp}/${name}.tsx`;
      await Deno.writeTextFile(
        entry,
        `import { h, hydrate } from "preact";\n` +
          `import Island from "../${name}.tsx";\n` +
          `for (const el of document.querySelectorAll('[data-island="${name}"]')) {\n` +
          `  hydrate(h(Island, JSON.parse(el.getAttribute("data-props") ?? "{}")), el);\n` +
          `}\n`,
      );
      const out = new URL(`static/build/${name}.js`, ROOT).pathname;
      // Bundled beside the target and renamed over it: test files build in parallel while other
      // tests' pages load the bundle, and a rename never shows them half a file.
      const partial = `${tmp}/${name}.js`;
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", partial, entry],
        cwd: new URL(".", ROOT).pathname,
        stdout: "null",
        stderr: "piped",
      }).output();
      if (code !== 0) {
        throw new Error(`deno bundle ${name} failed:\n${new TextDecoder().decode(stderr)}`);
      }
      await Deno.rename(partial, out);
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  return names;
}

/** Whether every island has a bundle under `static/build/` (fresh or not). */
export async function islandsBuilt(): Promise<boolean> {
  for await (const entry of Deno.readDir(new URL("islands/", ROOT))) {
    if (!/^[A-Z]\w*\.tsx$/.test(entry.name)) continue;
    const bundle = new URL(`static/build/${entry.name.slice(0, -4)}.js`, ROOT);
    try {
      await Deno.stat(bundle);
    } catch {
      return false;
    }
  }
  return true;
}

if (import.meta.main) {
  const names = await buildIslands();
  console.log(`Bundled ${names.length} island(s) into static/build/: ${names.join(", ")}`);
}
