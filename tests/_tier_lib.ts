/**
 * `deno task test:unit`: every in-process `lib/` test file, loaded into this one isolate so
 * `deno test` runs them without starting a worker per file (tests/_tiers.ts says why).
 */
import { importAll, tierFiles } from "./_tiers.ts";

await importAll(tierFiles("unit"));
