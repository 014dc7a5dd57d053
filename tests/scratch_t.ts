import { openLimitedKv } from "./_kv_limits.ts";
import { buildInstance, buildThreeYearMember } from "./_big_instance.ts";
for (const [name, open] of [["raw", () => Deno.openKv(":memory:")], ["limited", () => openLimitedKv()]] as const) {
  const kv = await open();
  let t = performance.now();
  await buildThreeYearMember(kv);
  const a = performance.now() - t;
  t = performance.now();
  await buildInstance(kv);
  console.log(name, "3y", a.toFixed(0), "ms; 1000 members", (performance.now() - t).toFixed(0), "ms");
  kv.close();
}
