import assert from "node:assert/strict";
import {
  assertPublicHost,
  clientIdUrlProblem,
  ClientMetadataFetchError,
  fetchClientMetadataDocument,
  isPrivateAddress,
} from "./client_metadata_document.ts";

Deno.test("isPrivateAddress() refuses loopback, private, link-local, metadata and mapped ranges", () => {
  for (
    const ip of [
      "127.0.0.1",
      "10.0.0.5",
      "172.16.3.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::7f00:1",
      "fe80::1",
      "fd12:3456::1",
      "ff02::1",
      "[::1]",
      "not an ip",
    ]
  ) {
    assert.equal(isPrivateAddress(ip), true, ip);
  }
  for (
    const ip of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"]
  ) {
    assert.equal(isPrivateAddress(ip), false, ip);
  }
});

Deno.test("assertPublicHost() refuses a name if any of its addresses is private (DNS-based SSRF)", async () => {
  const resolve = (answers: string[]) => () => Promise.resolve(answers);
  await assertPublicHost("app.example.com", resolve(["93.184.216.34"]));
  await assert.rejects(
    assertPublicHost("app.example.com", resolve(["10.0.0.1"])),
    ClientMetadataFetchError,
  );
  await assert.rejects(
    assertPublicHost("app.example.com", resolve(["93.184.216.34", "127.0.0.1"])),
    ClientMetadataFetchError,
  );
  await assert.rejects(assertPublicHost("app.example.com", resolve([])), ClientMetadataFetchError);
  await assert.rejects(
    assertPublicHost("localhost", resolve(["93.184.216.34"])),
    ClientMetadataFetchError,
  );
  await assert.rejects(assertPublicHost("169.254.169.254", resolve([])), ClientMetadataFetchError);
  await assert.rejects(assertPublicHost("[::1]", resolve([])), ClientMetadataFetchError);
});

Deno.test("clientIdUrlProblem() wants https with a path and no fragment", () => {
  assert.equal(clientIdUrlProblem("https://app.example.com/client.json"), null);
  assert.notEqual(clientIdUrlProblem("http://app.example.com/client.json"), null);
  assert.notEqual(clientIdUrlProblem("https://app.example.com/"), null);
  assert.notEqual(clientIdUrlProblem("https://app.example.com/a#x"), null);
  assert.notEqual(clientIdUrlProblem("https://u:p@app.example.com/a"), null);
  assert.notEqual(clientIdUrlProblem("https://app.example.com/a/../b"), null);
});

Deno.test("fetchClientMetadataDocument() never fetches a private target, follows no redirect, caps size", async () => {
  const publicDns = () => Promise.resolve(["93.184.216.34"]);
  let fetches = 0;
  const never = (() => {
    fetches++;
    return Promise.resolve(new Response("{}"));
  }) as typeof fetch;
  await assert.rejects(
    fetchClientMetadataDocument(new URL("https://internal.example.com/c.json"), {
      resolve: () => Promise.resolve(["10.1.2.3"]),
      fetch: never,
    }),
    /non-public address/,
  );
  assert.equal(fetches, 0, "no request is made to a private address");

  const redirecting = ((_u: URL, init?: RequestInit) => {
    assert.equal(init?.redirect, "manual");
    return Promise.resolve(
      new Response(null, { status: 302, headers: { location: "http://127.0.0.1/" } }),
    );
  }) as typeof fetch;
  await assert.rejects(
    fetchClientMetadataDocument(new URL("https://app.example.com/c.json"), {
      resolve: publicDns,
      fetch: redirecting,
    }),
    /HTTP 302/,
  );

  const huge = (() => Promise.resolve(new Response("x".repeat(20_000)))) as typeof fetch;
  await assert.rejects(
    fetchClientMetadataDocument(new URL("https://app.example.com/c.json"), {
      resolve: publicDns,
      fetch: huge,
    }),
    /exceeds/,
  );

  const ok =
    (() => Promise.resolve(new Response(JSON.stringify({ client_id: "x" })))) as typeof fetch;
  assert.deepEqual(
    await fetchClientMetadataDocument(new URL("https://app.example.com/c.json"), {
      resolve: publicDns,
      fetch: ok,
    }),
    { client_id: "x" },
  );

  const slow =
    ((_u: URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
      )) as typeof fetch;
  await assert.rejects(
    fetchClientMetadataDocument(new URL("https://app.example.com/c.json"), {
      resolve: publicDns,
      fetch: slow,
      timeoutMs: 20,
    }),
    /could not be fetched/,
  );
});
