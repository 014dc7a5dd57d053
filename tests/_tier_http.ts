/**
 * The other half of `deno task test:fast`: every in-process test file under tests/ (HTTP tests on
 * `app.request`, the source scans), loaded into this one isolate (tests/_tiers.ts says why).
 */
import { importAll, tierFiles } from "./_tiers.ts";

await importAll(tierFiles("fast").filter((file) => !file.startsWith("lib/")));
