import assert from "node:assert/strict";
import {
  assertPublicHost,
  clientIdUrlProblem,
  ClientMetadataFetchError,
  fetchClientMetadataDocument,
  type FetchClientMetadataOptions,
  isPrivateAddress,
  UNREACHABLE,
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

const TLS = new URL("../../tests/fixtures/tls/", import.meta.url);
const CA = Deno.readTextFileSync(new URL("ca.pem", TLS));

/** A TLS server on `hostname` with the test certificate for client.example.com. */
function serveTls(
  hostname: string,
  handler: (req: Request) => Response | Promise<Response>,
  port = 0,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({
    hostname,
    port,
    cert: Deno.readTextFileSync(new URL("leaf.pem", TLS)),
    key: Deno.readTextFileSync(new URL("leaf.key", TLS)),
    onListen() {},
  }, handler);
}

Deno.test("fetchClientMetadataDocument() connects to the address it checked (no DNS rebinding)", async () => {
  const seen: string[] = [];
  await using good = serveTls("127.0.0.1", (req) => {
    seen.push(req.headers.get("host")!);
    return Response.json({ client_id: "doc" });
  });
  const port = good.addr.port;
  let inward = 0;
  // The rebinding target: same port, another loopback address the guard would refuse.
  await using _internal = serveTls("127.0.0.2", () => {
    inward++;
    return Response.json({ client_id: "internal" });
  }, port);
  let lookups = 0;
  // First answer checked and allowed; every later answer points inward (TTL 0 rebinding).
  const rebinding = () => Promise.resolve(lookups++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"]);
  const doc = await fetchClientMetadataDocument(
    new URL(`https://client.example.com:${port}/c.json`),
    { resolve: rebinding, allowAddress: (ip) => ip === "127.0.0.1", caCerts: [CA] },
  );
  assert.deepEqual(doc, { client_id: "doc" });
  assert.equal(lookups, 1, "the name is resolved once, by the guard");
  assert.equal(inward, 0, "nothing reached the address a second resolution names");
  // SNI, certificate check and Host are the URL's host, not the address connected to.
  assert.deepEqual(seen, [`client.example.com:${port}`]);
});

Deno.test("fetchClientMetadataDocument() reads every failure to reach a document alike", async () => {
  await using server = serveTls("127.0.0.1", () => Response.json({ client_id: "doc" }));
  const port = server.addr.port;
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  // A server that accepts and never answers: the timeout.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  const loopback = { allowAddress: (ip: string) => ip === "127.0.0.1", caCerts: [CA] };
  const cases: [string, string, FetchClientMetadataOptions][] = [
    ["private address", "https://internal.example.com/c.json", {
      resolve: () => Promise.resolve(["10.1.2.3"]),
    }],
    ["one private address among public ones", "https://mixed.example.com/c.json", {
      resolve: () => Promise.resolve(["93.184.216.34", "169.254.169.254"]),
    }],
    ["no such name", "https://nowhere.example.com/c.json", {
      resolve: () => Promise.reject(new Error("NXDOMAIN")),
    }],
    ["no address", "https://empty.example.com/c.json", { resolve: () => Promise.resolve([]) }],
    ["private literal", "https://[::1]/c.json", {}],
    ["localhost", "https://localhost/c.json", {}],
    ["connection refused", `https://client.example.com:${closedPort}/c.json`, {
      ...loopback,
      resolve: () => Promise.resolve(["127.0.0.1"]),
    }],
    ["certificate for another name", `https://other.example.com:${port}/c.json`, {
      ...loopback,
      resolve: () => Promise.resolve(["127.0.0.1"]),
    }],
    ["untrusted certificate", `https://client.example.com:${port}/c.json`, {
      allowAddress: loopback.allowAddress,
      resolve: () => Promise.resolve(["127.0.0.1"]),
    }],
    ["timeout", `https://client.example.com:${(silent.addr as Deno.NetAddr).port}/c.json`, {
      ...loopback,
      resolve: () => Promise.resolve(["127.0.0.1"]),
      timeoutMs: 200,
    }],
  ];
  try {
    for (const [what, url, options] of cases) {
      await assert.rejects(
        fetchClientMetadataDocument(new URL(url), options),
        (err: Error) => err instanceof ClientMetadataFetchError && err.message === UNREACHABLE,
        what,
      );
    }
  } finally {
    silent.close();
    for (const conn of held) conn.close();
  }
});

Deno.test("fetchClientMetadataDocument() follows no redirect, caps the size, wants JSON", async () => {
  let answer = (): Response => Response.json({ client_id: "x" });
  await using server = serveTls("127.0.0.1", () => answer());
  const url = new URL(`https://client.example.com:${server.addr.port}/c.json`);
  const options: FetchClientMetadataOptions = {
    resolve: () => Promise.resolve(["127.0.0.1"]),
    allowAddress: (ip) => ip === "127.0.0.1",
    caCerts: [CA],
  };
  answer = () => new Response(null, { status: 302, headers: { location: "http://127.0.0.1/" } });
  await assert.rejects(fetchClientMetadataDocument(url, options), /answered HTTP 302/);
  answer = () => new Response("x".repeat(20_000));
  await assert.rejects(fetchClientMetadataDocument(url, options), /exceeds 8192 bytes/);
  answer = () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("y".repeat(1000)));
          c.close();
        },
      }),
    );
  await assert.rejects(fetchClientMetadataDocument(url, options), /exceeds 8192 bytes/);
  answer = () => new Response("<html>");
  await assert.rejects(fetchClientMetadataDocument(url, options), /not JSON/);
  answer = () => Response.json({ client_id: "x" });
  assert.deepEqual(await fetchClientMetadataDocument(url, options), { client_id: "x" });
});
