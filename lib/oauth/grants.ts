/**
 * Authorization codes, grants, access and refresh tokens (OAuth 2.1 §4.1, §4.3; RFC 6749 §10;
 * RFC 7636; RFC 8707). Every secret is stored as its SHA-256 and the hash is the key part
 * (DESIGN §7). Ephemeral records use `expireIn` and a stored `expiresAt` checked on read, because
 * KV may show an expired key for a while.
 */

import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys, type OAuthSecretKey } from "../foundation/kv_keys.ts";
import { commitKv, readKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import { displaySafeName } from "./clients.ts";
import { OAUTH_SCOPE } from "./metadata.ts";
import { hashSecret, isTokenOf, newId, newSecret, s256, safeEqual } from "../foundation/secrets.ts";

/** Authorization codes live 5 minutes (OAuth 2.1 §4.1.2: short, "maximum of 10 minutes"). */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60 * 1000;
/** Access tokens live one hour (`expires_in: 3600`). */
export const ACCESS_TOKEN_TTL_S = 3600;
/** Refresh tokens live 30 days from issue; each refresh issues a new one (rotation). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A consent screen must be answered within 10 minutes. */
export const CONSENT_TICKET_TTL_MS = 10 * 60 * 1000;
/** A redeemed code is remembered this long so a replay revokes the grant (RFC 6749 §4.1.2). */
export const SPENT_CODE_TTL_MS = 60 * 60 * 1000;

/** A validated authorization request (what the consent screen approves). */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string | null;
  /** The redirect URI exactly as the client sent it (returned to, and compared at the token endpoint). */
  redirectUri: string;
  /** PKCE S256 challenge (RFC 7636 §4.2). */
  codeChallenge: string;
  scope: string;
  /** Canonical MCP resource the tokens will be bound to (RFC 8707). */
  resource: string;
  state: string | null;
}

interface ConsentTicket {
  memberId: string;
  /** Binds the ticket to the session that saw the consent screen (CSRF defence). */
  sessionBinding: string;
  request: AuthorizationRequest;
  expiresAt: number;
}

interface StoredCode {
  memberId: string;
  request: AuthorizationRequest;
  expiresAt: number;
}

interface SpentCode {
  memberId: string;
  grantId: string;
  expiresAt: number;
}

/** A member's authorization of one client: a "connected app". */
export interface Grant {
  grantId: string;
  memberId: string;
  clientId: string;
  clientName: string | null;
  redirectUri: string;
  scope: string;
  resource: string;
  /** Whether the client may refresh (it registered the refresh_token grant type). */
  refreshable: boolean;
  createdAt: number;
  refreshedAt: number | null;
}

interface StoredAccessToken {
  grantId: string;
  memberId: string;
  clientId: string;
  scope: string;
  resource: string;
  expiresAt: number;
}

interface StoredRefreshToken extends StoredAccessToken {
  /** Set when the token was exchanged for a new one; a second use is reuse (OAuth 2.1 §4.3.1). */
  rotatedAt: number | null;
}

/** The successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

// ----- the member's index of secrets ---------------------------------------------------------

/**
 * Adds to `atomic` a record keyed by a secret's hash and its `oauth_member_secrets` index entry,
 * both with `expireIn`, so account deletion finds the member's secrets without reading anyone
 * else's (issue #21). One commit holds both: neither is ever written alone.
 */
function setSecret(
  atomic: Deno.AtomicOperation,
  key: OAuthSecretKey,
  value: { memberId: string; expiresAt: number },
  expireIn: number,
): Deno.AtomicOperation {
  return atomic.set(key, value, { expireIn })
    .set(keys.oauthSecretOfMember(value.memberId, key), value.expiresAt, { expireIn });
}

/** Adds to `atomic` the deletion of a secret's record and of its index entry. */
function deleteSecret(
  atomic: Deno.AtomicOperation,
  key: OAuthSecretKey,
  memberId: string,
): Deno.AtomicOperation {
  return atomic.delete(key).delete(keys.oauthSecretOfMember(memberId, key));
}

// ----- consent tickets -----------------------------------------------------------------------

/** A pending consent to remember for the member's session. */
export interface ConsentTicketRequest {
  kv: Deno.Kv;
  clock: Clock;
  memberId: string;
  sessionBinding: string;
  request: AuthorizationRequest;
}

/**
 * Stores the validated request for the consent screen and returns the ticket: the form's CSRF
 * token, bound to the member's session and single-use. 256 random bits, stored hashed.
 */
export async function createConsentTicket(
  { kv, clock, memberId, sessionBinding, request }: ConsentTicketRequest,
): Promise<string> {
  const ticket = newSecret("consentTicket");
  const value: ConsentTicket = {
    memberId,
    sessionBinding,
    request,
    expiresAt: clock() + CONSENT_TICKET_TTL_MS,
  };
  const key = keys.oauthConsentTicket(hashSecret(ticket));
  await commitKv(() => setSecret(kv.atomic(), key, value, CONSENT_TICKET_TTL_MS));
  return ticket;
}

/** A consent ticket presented with the form, and the session it must belong to. */
export interface ConsumeConsentTicketOptions {
  kv: Deno.Kv;
  clock: Clock;
  ticket: string;
  sessionBinding: string;
}

/**
 * Consumes a consent ticket (atomic check-and-delete) and returns its request, or throws
 * `forbidden` when it is missing, expired, already used or belongs to another session — the
 * CSRF check of the consent POST (RFC 6749 §10.12, OAuth 2.1 §7.12).
 */
export async function consumeConsentTicket(
  { kv, clock, ticket, sessionBinding }: ConsumeConsentTicketOptions,
): Promise<{ memberId: string; request: AuthorizationRequest }> {
  const refused = new AppError(
    "forbidden",
    "The consent form expired or was not issued to this session; start again from the app.",
  );
  if (!isTokenOf("consentTicket", ticket) || ticket.length > 100) throw refused;
  const key = keys.oauthConsentTicket(hashSecret(ticket));
  const entry = await kv.get<ConsentTicket>(key);
  const value = entry.value;
  if (
    !value || value.expiresAt <= clock() ||
    !safeEqual(value.sessionBinding, sessionBinding)
  ) {
    throw refused;
  }
  const res = await commitKv(() => deleteSecret(kv.atomic().check(entry), key, value.memberId));
  if (!res.ok) throw refused;
  return { memberId: value.memberId, request: value.request };
}

// ----- authorization codes -------------------------------------------------------------------

/** The approved request a code is issued for. */
export interface IssueCodeOptions {
  kv: Deno.Kv;
  clock: Clock;
  memberId: string;
  request: AuthorizationRequest;
}

/** Issues a single-use authorization code for an approved request (OAuth 2.1 §4.1.2). */
export async function issueAuthorizationCode(
  { kv, clock, memberId, request }: IssueCodeOptions,
): Promise<string> {
  const code = newSecret("authorizationCode");
  const value: StoredCode = { memberId, request, expiresAt: clock() + AUTHORIZATION_CODE_TTL_MS };
  const key = keys.oauthCode(hashSecret(code));
  await commitKv(() => setSecret(kv.atomic(), key, value, AUTHORIZATION_CODE_TTL_MS));
  return code;
}

/** Parameters of the authorization_code grant (OAuth 2.1 §4.1.3). */
export interface CodeExchange {
  code: string;
  codeVerifier: string;
  clientId: string;
  redirectUri: string | null;
  /** Canonical resource if the client sent one (already checked to name this server). */
  resource: string | null;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * The exchange must match what the code was issued for: client, redirect URI, resource and the
 * PKCE challenge. Pure, so it runs before anything is written.
 */
function checkCodeBinding(params: CodeExchange, request: AuthorizationRequest): void {
  const invalid = (why: string) => new AppError("invalid_grant", why);
  // RFC 6749 §4.1.3: a public client's code must have been issued to this client_id.
  if (params.clientId !== request.clientId) {
    throw invalid("The authorization code was issued to another client.");
  }
  // OAuth 2.1 §4.1.3: redirect_uri must be identical to the one in the authorization request.
  if (params.redirectUri === null) {
    throw new AppError("invalid_request", "redirect_uri is required.");
  }
  if (params.redirectUri !== request.redirectUri) {
    throw invalid("redirect_uri does not match the authorization request.");
  }
  // RFC 8707 §2.2: tokens for the resource the grant was made for, nothing else.
  if (params.resource !== null && params.resource !== request.resource) {
    throw new AppError("invalid_target", "resource does not match the authorization request.");
  }
  // RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) == code_challenge.
  if (!VERIFIER.test(params.codeVerifier)) {
    throw new AppError(
      "invalid_request",
      "code_verifier must be 43–128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1).",
    );
  }
  if (!safeEqual(s256(params.codeVerifier), request.codeChallenge)) {
    throw invalid("code_verifier does not match the code_challenge.");
  }
}

/** A token request redeeming an authorization code. */
export interface CodeExchangeOptions {
  kv: Deno.Kv;
  clock: Clock;
  params: CodeExchange;
  clientAllowsRefresh: boolean;
  /**
   * The client is a registered one still on its unused-client expiry (`OAuthClient.expiresAt`):
   * the commit that creates the grant also keeps the client for good.
   */
  keepClient?: boolean;
}

/**
 * Redeems an authorization code. Every check runs before any state changes, so a request that
 * fails (wrong client, redirect URI, resource or verifier) cannot burn a code that belongs to
 * someone else; the redemption itself is an atomic check-and-delete. A code presented again
 * after redemption revokes the grant and every token issued from it (RFC 6749 §4.1.2, §10.5;
 * OAuth 2.1 §4.1.3) — and so does a redemption that loses the race to a concurrent one: a
 * failed commit is tried again from a fresh read, which then finds the code spent and revokes
 * the grant the winner got, because either of the two may be the attacker (RFC 6749 §4.1.2: a
 * code used more than once is denied and the tokens issued from it SHOULD be revoked).
 */
export async function exchangeAuthorizationCode(
  options: CodeExchangeOptions,
): Promise<TokenResponse> {
  const { params } = options;
  if (!isTokenOf("authorizationCode", params.code) || params.code.length > 100) {
    throw new AppError("invalid_grant", "The authorization code is invalid.");
  }
  const codeHash = hashSecret(params.code);
  return await withKvRetry(() => tryExchangeCode(options, codeHash));
}

/** One attempt of `exchangeAuthorizationCode`: `RETRY` when the commit lost a race. */
async function tryExchangeCode(
  { kv, clock, params, clientAllowsRefresh, keepClient }: CodeExchangeOptions,
  codeHash: string,
): Promise<TokenResponse | typeof RETRY> {
  const invalid = (why: string) => new AppError("invalid_grant", why);
  const clientKey = keys.oauthClient(params.clientId);
  const [codeEntry, spentEntry] = await kv.getMany<[StoredCode, SpentCode]>([
    keys.oauthCode(codeHash),
    keys.oauthSpentCode(codeHash),
  ]);
  // Read only when the client is to be kept (a metadata-document client has no such record).
  const clientEntry = keepClient ? await kv.get(clientKey) : null;
  const now = clock();
  if (spentEntry.value && spentEntry.value.expiresAt > now) {
    // RFC 6749 §4.1.2: a code used twice → deny, and revoke tokens issued from it.
    await revokeGrant(kv, spentEntry.value.memberId, spentEntry.value.grantId);
    throw invalid(
      "The authorization code was already used; every token issued from it is revoked.",
    );
  }
  const stored = codeEntry.value;
  if (!stored || stored.expiresAt <= now) {
    throw invalid("The authorization code is invalid or expired.");
  }
  checkCodeBinding(params, stored.request);
  if (keepClient && !clientEntry?.value) {
    throw new AppError("invalid_client", "The client registration has expired; register again.");
  }
  const grant = newGrant(stored, clientAllowsRefresh, now);
  const spent: SpentCode = {
    memberId: stored.memberId,
    grantId: grant.grantId,
    expiresAt: now + SPENT_CODE_TTL_MS,
  };
  const grantKey = keys.oauthGrant(grant.memberId, grant.grantId);
  let tokens: TokenResponse | null = null;
  const res = await commitKv(() => {
    const atomic = kv.atomic()
      .check(codeEntry) // single use: only one redemption can commit
      .check(spentEntry)
      .check({ key: grantKey, versionstamp: null })
      .set(grantKey, grant);
    deleteSecret(atomic, keys.oauthCode(codeHash), stored.memberId);
    setSecret(atomic, keys.oauthSpentCode(codeHash), spent, SPENT_CODE_TTL_MS);
    // The first grant keeps the client: the value is set again without `expireIn` or
    // `expiresAt`, in the same commit, so a client with a grant can never expire.
    if (clientEntry) atomic.check(clientEntry).set(clientKey, keptClient(clientEntry.value));
    tokens = addTokens(atomic, grant, now);
    return atomic;
  });
  return res.ok && tokens ? tokens : RETRY;
}

/** A stored client value without its unused-client expiry. */
function keptClient(value: unknown): unknown {
  const { expiresAt: _expiresAt, ...kept } = value as { expiresAt?: number };
  return kept;
}

/** The grant a redeemed code creates. */
function newGrant(stored: StoredCode, refreshable: boolean, now: number): Grant {
  const request = stored.request;
  return {
    grantId: newId("grantId"),
    memberId: stored.memberId,
    clientId: request.clientId,
    clientName: request.clientName,
    redirectUri: request.redirectUri,
    scope: request.scope,
    resource: request.resource,
    refreshable,
    createdAt: now,
    refreshedAt: null,
  };
}

function addTokens(atomic: Deno.AtomicOperation, grant: Grant, now: number): TokenResponse {
  const accessToken = newSecret("accessToken");
  const access: StoredAccessToken = {
    grantId: grant.grantId,
    memberId: grant.memberId,
    clientId: grant.clientId,
    scope: grant.scope,
    resource: grant.resource,
    expiresAt: now + ACCESS_TOKEN_TTL_S * 1000,
  };
  setSecret(
    atomic,
    keys.oauthAccessToken(hashSecret(accessToken)),
    access,
    ACCESS_TOKEN_TTL_S * 1000,
  );
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_S,
    scope: grant.scope,
  };
  if (grant.refreshable) {
    const refreshToken = newSecret("refreshToken");
    const refresh: StoredRefreshToken = {
      ...access,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
      rotatedAt: null,
    };
    setSecret(
      atomic,
      keys.oauthRefreshToken(hashSecret(refreshToken)),
      refresh,
      REFRESH_TOKEN_TTL_MS,
    );
    response.refresh_token = refreshToken;
  }
  return response;
}

// ----- refresh -------------------------------------------------------------------------------

/** Parameters of the refresh_token grant (OAuth 2.1 §4.3.1). */
export interface RefreshRequest {
  refreshToken: string;
  clientId: string;
  /** Requested scope; must be within the grant (OAuth 2.1 §4.3.1). */
  scope: string | null;
  resource: string | null;
}

/**
 * Rotates a refresh token: a new access and refresh token, the old refresh token marked used.
 * Presenting a used refresh token again is treated as theft and revokes the whole grant (OAuth
 * 2.1 §4.3.1 "Refresh token rotation", RFC 9700 §4.14.2, MCP §Token Theft: public clients MUST
 * rotate). Two requests presenting the same token at once are the same replay: the loser's commit
 * fails, its next attempt reads the token as rotated and revokes the grant, so the tokens the
 * winner got stop working too — the winner may be the thief (issue #19 item 6).
 */
export async function refreshAccessToken(
  kv: Deno.Kv,
  clock: Clock,
  params: RefreshRequest,
): Promise<TokenResponse> {
  if (!isTokenOf("refreshToken", params.refreshToken) || params.refreshToken.length > 100) {
    throw new AppError("invalid_grant", "The refresh token is invalid.");
  }
  const rtKey = keys.oauthRefreshToken(hashSecret(params.refreshToken));
  return await withKvRetry(() => tryRefresh(kv, clock, params, rtKey));
}

/** One attempt of `refreshAccessToken`: `RETRY` when the commit lost a race. */
async function tryRefresh(
  kv: Deno.Kv,
  clock: Clock,
  params: RefreshRequest,
  rtKey: OAuthSecretKey,
): Promise<TokenResponse | typeof RETRY> {
  const invalid = (why: string) => new AppError("invalid_grant", why);
  const rtEntry = await kv.get<StoredRefreshToken>(rtKey);
  const stored = rtEntry.value;
  const now = clock();
  if (!stored || stored.expiresAt <= now) throw invalid("The refresh token is invalid or expired.");
  // OAuth 2.1 §4.3.1: refresh tokens are bound to the client they were issued to.
  if (params.clientId !== stored.clientId) {
    throw invalid("The refresh token was issued to another client.");
  }
  if (stored.rotatedAt !== null) {
    await revokeGrant(kv, stored.memberId, stored.grantId);
    throw invalid("The refresh token was already used; the grant is revoked. Authorize again.");
  }
  // Checked before any state change (CFOP #246): a wrong resource or scope rotates nothing.
  if (params.resource !== null && params.resource !== stored.resource) {
    throw new AppError("invalid_target", "resource does not match the grant.");
  }
  if (
    params.scope !== null && params.scope.split(" ").some((s) => s !== "" && s !== stored.scope)
  ) {
    throw new AppError("invalid_scope", `The grant covers only "${stored.scope}".`);
  }
  const grantEntry = await kv.get<Grant>(keys.oauthGrant(stored.memberId, stored.grantId));
  if (!grantEntry.value) throw invalid("The grant was revoked. Authorize again.");
  const grant = grantEntry.value;
  let tokens: TokenResponse | null = null;
  const res = await commitKv(() => {
    const atomic = kv.atomic()
      .check(rtEntry)
      .check(grantEntry) // a revocation racing with this refresh wins
      .set(grantEntry.key, { ...grant, refreshedAt: now });
    // Kept, marked, until it expires; its index entry is set again with it, so a token written
    // before the index existed (by a release still serving during migration) is indexed now.
    const rotated = { ...stored, rotatedAt: now };
    setSecret(atomic, rtKey, rotated, Math.max(1, stored.expiresAt - now));
    tokens = addTokens(atomic, grant, now);
    return atomic;
  });
  // A lost race is read again: the token is then rotated (replay → revoke) or the grant gone.
  return res.ok && tokens ? tokens : RETRY;
}

// ----- grants --------------------------------------------------------------------------------

/**
 * Revokes a member's grant by deleting it. Every access-token check and every refresh reads the
 * grant strongly, so from the moment the commit returns its tokens are refused on every instance
 * (spec "revocation takes effect immediately"). Returns whether the grant existed.
 */
export async function revokeGrant(
  kv: Deno.Kv,
  memberId: string,
  grantId: string,
): Promise<boolean> {
  const key = keys.oauthGrant(memberId, grantId);
  const entry = await readKv(() => kv.get<Grant>(key));
  await commitKv(() => kv.atomic().delete(key));
  return entry.value !== null;
}

/** Revokes every grant the member gave `clientId`; returns how many there were. */
export async function revokeGrantsOfClient(
  kv: Deno.Kv,
  memberId: string,
  clientId: string,
): Promise<number> {
  let revoked = 0;
  for await (const entry of kv.list<Grant>({ prefix: keys.oauthGrantsOf(memberId) })) {
    if (
      entry.value.clientId === clientId &&
      await revokeGrant(kv, memberId, entry.value.grantId)
    ) revoked++;
  }
  return revoked;
}

/** A connected app as the member sees it. */
export interface GrantSummary {
  grantId: string;
  clientId: string;
  clientName: string | null;
  redirectHost: string;
  scope: string;
  resource: string;
  createdAt: string;
  refreshedAt: string | null;
}

/** The member's connected apps, newest first. */
export async function listGrants(kv: Deno.Kv, memberId: string): Promise<GrantSummary[]> {
  const out: GrantSummary[] = [];
  for await (const entry of kv.list<Grant>({ prefix: keys.oauthGrantsOf(memberId) })) {
    const g = entry.value;
    let redirectHost: string;
    try {
      redirectHost = new URL(g.redirectUri).host || new URL(g.redirectUri).protocol;
    } catch {
      redirectHost = g.redirectUri;
    }
    out.push({
      grantId: g.grantId,
      clientId: g.clientId,
      // A grant made before Cf characters were refused may hold one (issue #19 item 10).
      clientName: displaySafeName(g.clientName),
      redirectHost,
      scope: g.scope,
      resource: g.resource,
      createdAt: new Date(g.createdAt).toISOString(),
      refreshedAt: g.refreshedAt === null ? null : new Date(g.refreshedAt).toISOString(),
    });
  }
  return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

// ----- access-token verification --------------------------------------------------------------

/** What a valid OAuth access token speaks for. */
export interface OAuthPrincipal {
  memberId: string;
  clientId: string;
  grantId: string;
  scopes: readonly string[];
  resource: string;
}

interface CachedToken {
  principal: OAuthPrincipal;
  expiresAt: number;
}

const MAX_CACHED_TOKENS = 10_000;

/**
 * Verifies OAuth access tokens. What a token says (member, grant, resource, expiry) never changes,
 * so that is cached per instance; whether it is still valid is not: every call reads the token's
 * grant with a strongly consistent read, and revocation (or account deletion) deletes the grant,
 * so the next call is refused on every instance (docs/architecture.md). A first use also reads the
 * token; `memberOf` lets lib/record/member_access.ts read the member's record version in the same
 * batch as the grant.
 */
export class AccessTokenVerifier {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #cache = new Map<string, CachedToken>();
  readonly #reader: StrongReader;

  /** One per instance, owned by lib/record/member_access.ts `MemberAccess` with the other caches. */
  constructor(kv: Deno.Kv, clock: Clock, reader = new StrongReader(kv)) {
    this.#kv = kv;
    this.#clock = clock;
    this.#reader = reader;
  }

  /** The member a token was seen to stand for (immutable, so safe to remember); nothing is read. */
  memberOf(token: string): string | undefined {
    if (!isTokenOf("accessToken", token) || token.length > 100) return undefined;
    return this.#cache.get(hashSecret(token))?.principal.memberId;
  }

  /**
   * The principal of `token`, or `null` when it is unknown, expired, or its grant is revoked.
   * Whether the token's resource fits the endpoint is the caller's check (RFC 8707 §2, MCP
   * §Token Audience Binding).
   */
  async verify(token: string): Promise<OAuthPrincipal | null> {
    if (!isTokenOf("accessToken", token) || token.length > 100) return null;
    const hash = hashSecret(token);
    const now = this.#clock();
    let cached = this.#cache.get(hash);
    if (!cached) {
      const stored = (await this.#reader.get<StoredAccessToken>(keys.oauthAccessToken(hash)))
        .value;
      if (!stored) return null;
      cached = {
        principal: {
          memberId: stored.memberId,
          clientId: stored.clientId,
          grantId: stored.grantId,
          scopes: stored.scope.split(" ").filter((s) => s === OAUTH_SCOPE),
          resource: stored.resource,
        },
        expiresAt: stored.expiresAt,
      };
      if (this.#cache.size >= MAX_CACHED_TOKENS) this.#cache.clear();
      this.#cache.set(hash, cached);
    }
    if (cached.expiresAt <= now) {
      this.#cache.delete(hash);
      return null;
    }
    const { memberId, grantId } = cached.principal;
    const grant = await this.#reader.get<Grant>(keys.oauthGrant(memberId, grantId));
    return grant.value ? cached.principal : null;
  }
}
