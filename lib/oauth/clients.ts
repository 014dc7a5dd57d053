/**
 * OAuth clients: open dynamic registration of public clients (RFC 7591) and Client ID Metadata
 * Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25 §Client Registration).
 */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv } from "../foundation/kv_commit.ts";
import {
  clientIdUrlProblem,
  type ClientMetadataFetcher,
  ClientMetadataFetchError,
  UNREACHABLE,
} from "./client_metadata_document.ts";
import { OAUTH_SCOPE } from "./metadata.ts";
import { CONTROL_CHARACTER, redirectUriProblem } from "./redirect_uri.ts";
import { newId } from "../foundation/secrets.ts";

/** Grant types a client may register (the token endpoint serves exactly these). */
export const SUPPORTED_GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** A client the authorization server knows. */
export interface OAuthClient {
  clientId: string;
  /** Shown on the consent screen; `null` when the client sent none. */
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
  /** Seconds since the epoch (RFC 7591 §3.2.1). */
  clientIdIssuedAt: number;
  /** How the client is known: registered here, or by its metadata document URL. */
  source: "registration" | "metadata_document";
  /**
   * Milliseconds since the epoch after which a registered client that never completed an
   * authorization is gone; absent once a grant was made (and on clients registered before
   * issue #19). Stored besides `expireIn`, and checked on read, because KV may show an expired
   * key for a while (house style).
   */
  expiresAt?: number;
}

/**
 * A registered client is kept this long unless an authorization completes: open registration
 * (RFC 7591 §3) needs no credential, so an unused client must not occupy storage for ever
 * (RFC 7591 §5 "Security Considerations": the server may expire registrations; issue #19 item 5).
 */
export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Client metadata a public client may send (RFC 7591 §2). Unknown fields are ignored, as RFC 7591
 * §2 requires of fields the server does not understand.
 */
export const ClientMetadata = z.object({
  client_name: z.string().trim().min(1).max(200).optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  grant_types: z.array(z.string()).min(1).max(5).optional(),
  response_types: z.array(z.string()).min(1).max(5).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: z.string().max(200).optional(),
}).loose();

/** RFC 7591 §3.2.1 response body for a registered client. */
export function registrationResponse(client: OAuthClient) {
  return {
    client_id: client.clientId,
    client_id_issued_at: client.clientIdIssuedAt,
    client_name: client.clientName ?? undefined,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ["code"],
    // Public clients only (spec "OAuth client"): no client_secret is ever issued (RFC 7591 §3.2.1).
    token_endpoint_auth_method: "none",
    scope: OAUTH_SCOPE,
  };
}

/**
 * Unicode format characters (general category Cf): bidi overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), zero-width characters (U+200B–U+200D, U+FEFF), soft hyphen and the like. They
 * are invisible, and a bidi override reorders what follows it, so a name holding one can read as
 * another app's name on the consent screen (Unicode TR #36 §2.1 "Visual Security Issues", RFC 7591
 * §5: a client name is self-asserted and may impersonate). Issue #19 item 10.
 */
export const FORMAT_CHARACTER = /\p{Cf}/u;
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** Whether `value`, or any string, key or element inside it, holds a character `pattern` finds. */
function holdsCharacter(value: unknown, pattern: RegExp, depth = 0): boolean {
  if (typeof value === "string") return pattern.test(value);
  if (typeof value !== "object" || value === null || depth > 8) return false;
  return Object.entries(value).some(([k, v]) =>
    pattern.test(k) || holdsCharacter(v, pattern, depth + 1)
  );
}

/** The kinds of character refused anywhere in client metadata, and how a refusal names them. */
const REFUSED_CHARACTERS: readonly [RegExp, string][] = [
  [CONTROL_CHARACTER, "a control character (U+0000–U+001F, U+007F–U+009F)"],
  [FORMAT_CHARACTER, "an invisible format character (Unicode category Cf, e.g. U+202E, U+200B)"],
];

/**
 * Refuses metadata with a control character (C0, DEL, C1) or a format character (Cf) in any
 * field, known or not: such a character in `redirect_uris` is `invalid_redirect_uri`, anywhere
 * else `invalid_client_metadata` (RFC 7591 §3.2.2). A name shown on the consent screen or a URI
 * compared byte for byte must be exactly what a person and a browser see (see `CONTROL_CHARACTER`,
 * `FORMAT_CHARACTER`).
 */
function refuseControlCharacters(raw: unknown): void {
  if (typeof raw !== "object" || raw === null) return;
  for (const [field, value] of Object.entries(raw)) {
    for (const [pattern, kind] of REFUSED_CHARACTERS) {
      if (!pattern.test(field) && !holdsCharacter(value, pattern)) continue;
      const code = field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
      const shown = JSON.stringify(field.slice(0, 64).replace(FORMAT_CHARACTERS, ""));
      throw new AppError(code, `The field ${shown} contains ${kind}.`);
    }
  }
}

/**
 * A name as it may be shown to a person: each format character (Cf) becomes a visible
 * `[U+XXXX]`, so a client stored before they were refused cannot reorder or hide text on the
 * consent screen, the sign-in page or the list of connected apps.
 */
export function displaySafeName(name: string | null): string | null {
  if (name === null) return null;
  return name.replace(
    FORMAT_CHARACTERS,
    (ch) => `[U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`,
  );
}

/** `client` with its name made display-safe (`displaySafeName`). */
function displaySafeClient(client: OAuthClient): OAuthClient {
  return { ...client, clientName: displaySafeName(client.clientName) };
}

/**
 * Validates metadata into the effective client fields, throwing `invalid_redirect_uri` or
 * `invalid_client_metadata` (RFC 7591 §3.2.2) with the reason.
 */
export function validateClientMetadata(raw: unknown): {
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
} {
  refuseControlCharacters(raw);
  const parsed = ClientMetadata.safeParse(raw);
  if (!parsed.success) {
    const redirectIssue = parsed.error.issues.find((i) => i.path[0] === "redirect_uris");
    throw new AppError(
      redirectIssue ? "invalid_redirect_uri" : "invalid_client_metadata",
      z.prettifyError(parsed.error),
    );
  }
  const m = parsed.data;
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) {
      throw new AppError("invalid_redirect_uri", `Redirect URI "${uri.slice(0, 200)}" ${problem}.`);
    }
  }
  // RFC 7591 §2: an omitted method means client_secret_basic; the server may substitute its own
  // value and return it. Only `none` exists here, so substitute when omitted, refuse otherwise.
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== "none") {
    throw new AppError(
      "invalid_client_metadata",
      `token_endpoint_auth_method must be "none": only public clients are supported (no client secret).`,
    );
  }
  // RFC 7591 §2: grant_types defaults to authorization_code, response_types to code.
  const grantTypes = [...new Set(m.grant_types ?? ["authorization_code"])];
  const unsupported = grantTypes.filter((g) =>
    !(SUPPORTED_GRANT_TYPES as readonly string[]).includes(g)
  );
  if (unsupported.length > 0) {
    throw new AppError(
      "invalid_client_metadata",
      `Unsupported grant_types: ${
        unsupported.join(", ")
      }. Use authorization_code and refresh_token.`,
    );
  }
  if (!grantTypes.includes("authorization_code")) {
    throw new AppError("invalid_client_metadata", "grant_types must include authorization_code.");
  }
  const responseTypes = m.response_types ?? ["code"];
  if (responseTypes.length !== 1 || responseTypes[0] !== "code") {
    throw new AppError("invalid_client_metadata", 'response_types must be ["code"].');
  }
  if (m.scope !== undefined && m.scope.split(" ").some((s) => s !== "" && s !== OAUTH_SCOPE)) {
    throw new AppError("invalid_client_metadata", `The only scope is "${OAUTH_SCOPE}".`);
  }
  return { clientName: m.client_name ?? null, redirectUris: m.redirect_uris, grantTypes };
}

/**
 * Registers a public client (RFC 7591 §3.1, open registration: no initial access token). Returns
 * the stored client; the route answers 201 with `registrationResponse`. `admit` runs after the
 * metadata is valid and before anything is stored: the registration quota counts clients that
 * would be kept, not malformed requests (those spend the general `oauth` quota).
 * The client expires after `UNUSED_CLIENT_TTL_MS` unless an authorization completes
 * (`exchangeAuthorizationCode` removes the expiry in the commit that creates the first grant).
 */
export async function registerClient(
  kv: Deno.Kv,
  clock: Clock,
  metadata: unknown,
  admit: () => Promise<unknown> = () => Promise.resolve(),
): Promise<OAuthClient> {
  const fields = validateClientMetadata(metadata);
  await admit();
  const client: OAuthClient = {
    clientId: newId("clientId"),
    ...fields,
    clientIdIssuedAt: Math.floor(clock() / 1000),
    source: "registration",
    expiresAt: clock() + UNUSED_CLIENT_TTL_MS,
  };
  const key = keys.oauthClient(client.clientId);
  const res = await commitKv(() =>
    kv.atomic().check({ key, versionstamp: null }).set(key, client, {
      expireIn: UNUSED_CLIENT_TTL_MS,
    })
  );
  if (!res.ok) throw new AppError("conflict", "Client id collision; retry the registration.");
  return client;
}

/** How long a fetched Client ID Metadata Document is reused before it is fetched again. */
export const CLIENT_DOCUMENT_CACHE_MS = 60 * 60 * 1000;

/** A client to look up. */
export interface FindClientOptions {
  kv: Deno.Kv;
  clock: Clock;
  clientId: string;
  /** Fetches Client ID Metadata Documents; omitted → URL client ids are unknown clients. */
  fetchDocument?: ClientMetadataFetcher;
}

/**
 * The client `clientId` names, or `null` when there is none. An https URL is a Client ID
 * Metadata Document: fetched (through the SSRF-guarded fetcher), its `client_id` must equal the
 * URL exactly, its metadata passes the same checks as registration, and it is cached for an hour.
 * A document that cannot be used throws `invalid_client` with the reason.
 */
export async function findClient(
  { kv, clock, clientId, fetchDocument }: FindClientOptions,
): Promise<OAuthClient | null> {
  // A control character is in no client id we issue nor in any URL we would fetch.
  if (clientId.length === 0 || clientId.length > 2000 || CONTROL_CHARACTER.test(clientId)) {
    return null;
  }
  if (!/^https:\/\//i.test(clientId)) {
    const client = (await kv.get<OAuthClient>(keys.oauthClient(clientId))).value;
    // An unused client past its expiry is gone, even while KV still shows the key.
    if (!client || (client.expiresAt !== undefined && client.expiresAt <= clock())) return null;
    return displaySafeClient(client);
  }
  if (!fetchDocument) return null;
  const problem = clientIdUrlProblem(clientId);
  if (problem) throw new AppError("invalid_client", `client_id URL ${problem}.`);
  const cacheKey = keys.oauthClientDocument(clientId);
  const cached = await kv.get<OAuthClient & { expiresAt: number }>(cacheKey);
  if (cached.value && cached.value.expiresAt > clock()) {
    const { expiresAt: _expiresAt, ...client } = cached.value;
    return displaySafeClient(client);
  }
  let document: unknown;
  try {
    document = await fetchDocument(new URL(clientId));
  } catch (err) {
    const reason = err instanceof ClientMetadataFetchError ? err.message : UNREACHABLE;
    throw new AppError("invalid_client", `Client ID Metadata Document unusable: ${reason}.`);
  }
  const documentClientId = (document as { client_id?: unknown } | null)?.client_id;
  // CIMD §4.1 / MCP: the document's client_id MUST equal the URL it was fetched from, exactly.
  if (documentClientId !== clientId) {
    throw new AppError(
      "invalid_client",
      "Client ID Metadata Document: its client_id does not equal its URL.",
    );
  }
  const d = document as Record<string, unknown>;
  if ("client_secret" in d || "client_secret_expires_at" in d) {
    throw new AppError(
      "invalid_client",
      "Client ID Metadata Document must not contain a client secret.",
    );
  }
  let fields;
  try {
    fields = validateClientMetadata(document);
  } catch (err) {
    throw new AppError("invalid_client", `Client ID Metadata Document: ${(err as Error).message}`);
  }
  const client: OAuthClient = {
    clientId,
    ...fields,
    clientIdIssuedAt: Math.floor(clock() / 1000),
    source: "metadata_document",
  };
  const cachedValue = { ...client, expiresAt: clock() + CLIENT_DOCUMENT_CACHE_MS };
  await commitKv(() =>
    kv.atomic().set(cacheKey, cachedValue, { expireIn: CLIENT_DOCUMENT_CACHE_MS })
  );
  return client;
}
