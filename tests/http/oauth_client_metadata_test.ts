/**
 * Client ID Metadata Documents fetched for real (issue #19 item 10): over TLS from a local server
 * on 127.0.0.1, through the same fetcher production uses, with only DNS and the address policy
 * injected — no public network. The fetch connects to the address the guard checked, and every
 * failure to reach a document reads alike on the page (draft-ietf-oauth-client-id-metadata-document
 * §6, SSRF).
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import {
  type ClientMetadataFetcher,
  fetchClientMetadataDocument,
  UNREACHABLE,
} from "../../lib/oauth/client_metadata_document.ts";
import { authorizeUrl, newPkce, openConsent, signUpMember } from "./_oauth.ts";

const TLS = new URL("../fixtures/tls/", import.meta.url);
const REDIRECT = "https://client.example.com/cb";

/** What the stub DNS answers for each name; a name not listed does not resolve. */
const DNS: Record<string, string[]> = {
  "client.example.com": ["127.0.0.1"],
  "internal.example.com": ["10.0.0.7"],
  "mixed.example.com": ["93.184.216.34", "169.254.169.254"],
};

Deno.test("GET /api/oauth/authorize", async (t) => {
  let lookups = 0;
  await using documents = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: Deno.readTextFileSync(new URL("leaf.pem", TLS)),
    key: Deno.readTextFileSync(new URL("leaf.key", TLS)),
    onListen() {},
  }, (req) =>
    Response.json({
      // Host is the URL's host (with its port), though the connection went to 127.0.0.1.
      client_id: `https://${req.headers.get("host")}${new URL(req.url).pathname}`,
      client_name: "Document App",
      redirect_uris: [REDIRECT],
    }));
  const fetcher: ClientMetadataFetcher = (url) =>
    fetchClientMetadataDocument(url, {
      resolve: (host) => {
        lookups++;
        return DNS[host] ? Promise.resolve(DNS[host]) : Promise.reject(new Error("NXDOMAIN"));
      },
      // Only the test's own server may be reached; every other private address stays refused.
      allowAddress: (ip) => ip === "127.0.0.1" || !/^(10|127|169\.254)\./.test(ip),
      caCerts: [Deno.readTextFileSync(new URL("ca.pem", TLS))],
    });
  await using server = await startServer({ clientMetadataFetcher: fetcher });
  const alice = await signUpMember(server.url, "alice");
  const open = (clientId: string) =>
    openConsent(
      authorizeUrl(server.url, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      }),
      alice,
    );

  await t.step("a document served at the checked address shows the consent page", async () => {
    const page = await open(`https://client.example.com:${documents.addr.port}/oauth/client.json`);
    assert.equal(page.res.status, 200, page.html);
    assert.match(page.html, /Document App/);
    assert.equal(lookups, 1, "the name was resolved once");
  });

  await t.step("every failure to reach a document reads alike", async () => {
    const port = documents.addr.port;
    const pages = [];
    for (
      const clientId of [
        "https://internal.example.com/c.json", // a private address
        "https://mixed.example.com/c.json", // one private address among public ones
        "https://nowhere.example.com/c.json", // does not resolve
        `https://other.example.com:${port}/c.json`, // not in DNS
        "https://[::1]/c.json", // a private literal
      ]
    ) {
      const page = await open(clientId);
      assert.equal(page.res.status, 400, clientId);
      assert.equal(page.res.headers.get("location"), null, clientId);
      const said = /<p role="alert">([^<]*)<\/p>/.exec(page.html)?.[1];
      pages.push(said);
      assert.doesNotMatch(page.html, /10\.0\.0\.7|169\.254|non-public|resolve/, clientId);
    }
    assert.equal(new Set(pages).size, 1, JSON.stringify(pages));
    assert.equal(pages[0], `Client ID Metadata Document unusable: ${UNREACHABLE}.`);
  });
});
