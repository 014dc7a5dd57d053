/**
 * API tokens (DESIGN §7, spec "API token"): `newSecret("apiToken")` (its prefix + 32 random bytes
 * base64url, lib/foundation/secrets.ts), stored only as
 * their SHA-256 with the scopes server-side (the string does not carry them). Minted by a signed-in
 * session, listed without the secret, revoked individually and immediately.
 */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import { hashSecret, isTokenOf, newSecret, prefixOf } from "../foundation/secrets.ts";
import { logEvent } from "../foundation/log.ts";

/** The only scope there is (spec "Rules"). */
export const SCOPES = ["read"] as const;

/** A bounded number of tokens per member keeps `list` small and limits damage from a leak. */
export const MAX_TOKENS_PER_MEMBER = 20;

/** `lastUsedAt` is kept in memory and flushed in one commit this often (never a write per call). */
export const LAST_USED_FLUSH_MS = 30_000;

/** The scopes a token may be created with; anything else is `invalid_scope`. */
export const TokenScopes = z.array(z.string()).min(1).max(4);

/** A stored API token (both copies; see lib/foundation/kv_keys.ts). */
export interface ApiToken {
  id: string;
  memberId: string;
  name: string;
  scopes: string[];
  createdAt: string;
  /** The first characters of the secret, so a member can tell tokens apart. */
  prefixHint: string;
  /** SHA-256 hex of the secret: the key of the bearer lookup. */
  hash: string;
}

/** A token as `list` shows it: never the secret or its hash. */
export interface ApiTokenView {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  prefixHint: string;
}

/** What `create` returns, the secret included, exactly once. */
export interface CreatedApiToken extends ApiTokenView {
  token: string;
}

function viewOf(token: ApiToken, lastUsed: number | null): ApiTokenView {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    createdAt: token.createdAt,
    lastUsedAt: lastUsed === null ? null : new Date(lastUsed).toISOString(),
    prefixHint: token.prefixHint,
  };
}

/** A token to mint for a member. */
export interface CreateApiTokenOptions {
  kv: Deno.Kv;
  clock: Clock;
  memberId: string;
  name: string;
  scopes: string[];
  /**
   * The client's `Idempotency-Key` for this create (draft-ietf-httpapi-idempotency-key-header §2;
   * the Settings form sends a one-time nonce as one): the first create under it mints the token,
   * every later one throws `already_created` naming that token and mints nothing. The secret is
   * never stored, so a replay cannot show it again (show-once, webapp-anchors §5).
   */
  idempotencyKey?: string;
}

/** How long a create's idempotency key is remembered: a reload or a resubmitted form comes soon. */
export const TOKEN_CREATE_KEY_TTL_MS = 24 * 3600_000;

/** What a create's idempotency key remembers: the token it made (never the secret). */
interface CreateOnce {
  id: string;
  name: string;
}

function alreadyCreated(once: CreateOnce): AppError {
  return new AppError(
    "already_created",
    `The token “${once.name}” was already created by this request; it is shown only once, so ` +
      `revoke it and create another if you did not copy it.`,
    { details: { id: once.id, name: once.name } },
  );
}

/** Throws `invalid_scope` for a scope other than `read`. */
function checkScopes(scopes: string[]): void {
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new AppError(
      "invalid_scope",
      `Unknown scope ${JSON.stringify(unknown[0])}; the only scope is "read".`,
      { details: { supported: SCOPES } },
    );
  }
}

/** Throws `too_many_tokens` when the member already holds the most tokens allowed. */
async function checkRoom(kv: Deno.Kv, memberId: string): Promise<void> {
  const existing = await Array.fromAsync(
    kv.list<ApiToken>({ prefix: keys.apiTokensOfMember(memberId) }),
  );
  if (existing.length >= MAX_TOKENS_PER_MEMBER) {
    throw new AppError(
      "too_many_tokens",
      `A member may hold at most ${MAX_TOKENS_PER_MEMBER} API tokens; revoke one first.`,
      { details: { max: MAX_TOKENS_PER_MEMBER } },
    );
  }
}

/**
 * Mints a token for `memberId`. Throws `invalid_scope` for a scope other than `read`,
 * `too_many_tokens` at the per-member bound and `already_created` for a repeated idempotency key.
 * The count is checked under the member's token list, so two concurrent creates cannot both pass
 * the bound.
 */
export async function createApiToken(
  { kv, clock, memberId, name, scopes, idempotencyKey }: CreateApiTokenOptions,
): Promise<CreatedApiToken> {
  checkScopes(scopes);
  const secret = newSecret("apiToken");
  const token: ApiToken = {
    id: crypto.randomUUID(),
    memberId,
    name,
    scopes: [...new Set(scopes)],
    createdAt: new Date(clock()).toISOString(),
    prefixHint: secret.slice(0, prefixOf("apiToken").length + 4),
    hash: hashSecret(secret),
  };
  // Concurrent creates by one member retry until each sees the others' commits (one wins a round);
  // lib/foundation/kv_commit.ts bounds the retries and answers `service_busy` past them.
  const onceKey = idempotencyKey === undefined
    ? null
    : keys.apiTokenCreate(memberId, idempotencyKey);
  return await withKvRetry(async () => {
    // The member is read too and checked at commit: no token outlives a deleted account.
    const wanted: Deno.KvKey[] = [keys.apiTokenSetVersion(memberId), keys.member(memberId)];
    if (onceKey) wanted.push(onceKey);
    const [setVersion, member, once] = await kv.getMany(wanted) as [
      Deno.KvEntryMaybe<number>,
      Deno.KvEntryMaybe<unknown>,
      Deno.KvEntryMaybe<CreateOnce> | undefined,
    ];
    if (!member.value) throw new AppError("not_found", "The account no longer exists.");
    if (once?.value) throw alreadyCreated(once.value);
    await checkRoom(kv, memberId);
    // The member's token-set version serialises creates, so two concurrent creates cannot both
    // pass the bound: the loser's check fails and it re-counts.
    const res = kv.atomic()
      .check(setVersion)
      .check(member)
      .check({ key: keys.apiToken(token.hash), versionstamp: null })
      .set(keys.apiToken(token.hash), token)
      .set(keys.apiTokenOfMember(memberId, token.id), token)
      .set(keys.apiTokenSetVersion(memberId), (setVersion.value ?? 0) + 1);
    // Checked absent and set in the token's commit: of two creates under one key (a reload on
    // any instance), exactly one mints; the other retries, finds the key and is refused.
    if (onceKey && once) {
      const remembered: CreateOnce = { id: token.id, name };
      res.check(once).set(onceKey, remembered, { expireIn: TOKEN_CREATE_KEY_TTL_MS });
    }
    return (await res.commit()).ok ? { ...viewOf(token, null), token: secret } : RETRY;
  });
}

/** Lists a member's tokens, newest first, without secrets. */
export async function listApiTokens(
  kv: Deno.Kv,
  memberId: string,
  resolver?: ApiTokenResolver,
): Promise<ApiTokenView[]> {
  const tokens =
    (await Array.fromAsync(kv.list<ApiToken>({ prefix: keys.apiTokensOfMember(memberId) })))
      .map((e) => e.value);
  const stamps: Deno.KvEntryMaybe<number>[] = [];
  for (let i = 0; i < tokens.length; i += 10) {
    // getMany reads at most 10 keys at a time.
    const part = tokens.slice(i, i + 10).map((t) => keys.apiTokenLastUsed(memberId, t.id));
    stamps.push(...await kv.getMany<number[]>(part));
  }
  return tokens.map((t, i) => {
    const stored = stamps[i]?.value ?? null;
    const pending = resolver?.pendingLastUsed(t.id) ?? null;
    const last = stored === null ? pending : pending === null ? stored : Math.max(stored, pending);
    return viewOf(t, last);
  }).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/**
 * Revokes one of the member's tokens by id: both copies deleted in one commit. Every instance
 * reads the bearer key strongly on each call (`ApiTokenResolver`), so once this returns the very
 * next call with the token is refused everywhere (spec "API token": revocation is immediate).
 * It returns only after the commit succeeded; contention past the retries is `service_busy`.
 */
export async function revokeApiToken(
  kv: Deno.Kv,
  memberId: string,
  tokenId: string,
): Promise<void> {
  await withKvRetry(async () => {
    const entry = await kv.get<ApiToken>(keys.apiTokenOfMember(memberId, tokenId));
    if (!entry.value) throw new AppError("not_found", `No token with id "${tokenId}".`);
    const res = await kv.atomic()
      .check(entry)
      .delete(keys.apiToken(entry.value.hash))
      .delete(keys.apiTokenOfMember(memberId, tokenId))
      .delete(keys.apiTokenLastUsed(memberId, tokenId))
      .commit();
    return res.ok ? true : RETRY;
  });
}

/** Who an API token speaks for. */
export interface TokenPrincipal {
  memberId: string;
  tokenId: string;
  scopes: readonly string[];
}

/** At most this many token → member mappings are remembered per instance. */
const MAX_KNOWN_TOKENS = 10_000;

/**
 * Resolves bearer API tokens. No validity is cached: each call reads the token's own key with a
 * strongly consistent read (the default consistency), so a revocation committed by any instance
 * is seen by the next call on every instance, whether the KV is a local file shared by processes
 * or remote (docs/architecture.md). Only what never changes — which member and scopes a token
 * hash stands for — is remembered (`memberOf`), so lib/record/member_access.ts can read a known
 * token's member's record version in the same batch as the token. Use times are remembered here
 * and flushed in batches.
 */
export class ApiTokenResolver {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  /** Token hash → principal: immutable facts, never trusted without the strong read. */
  readonly #known = new Map<string, TokenPrincipal>();
  /** tokenId → [memberId, last use ms] not yet written. */
  readonly #lastUsed = new Map<string, [string, number]>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  readonly #reader: StrongReader;

  constructor(kv: Deno.Kv, clock: Clock, reader = new StrongReader(kv)) {
    this.#kv = kv;
    this.#clock = clock;
    this.#reader = reader;
  }

  /** The member a token was seen to stand for (immutable, so safe to remember); nothing is read. */
  memberOf(token: string): string | undefined {
    return isTokenOf("apiToken", token) ? this.#known.get(hashSecret(token))?.memberId : undefined;
  }

  /** The principal of a token, or `null` when it is unknown or revoked. */
  async resolve(token: string): Promise<TokenPrincipal | null> {
    if (!isTokenOf("apiToken", token)) return null;
    const hash = hashSecret(token);
    const known = this.#known.get(hash);
    let principal: TokenPrincipal;
    if (known) {
      const entry = await this.#reader.get<ApiToken>(keys.apiToken(hash));
      if (!entry.value) {
        this.#known.delete(hash);
        return null;
      }
      principal = known;
    } else {
      const entry = await this.#reader.get<ApiToken>(keys.apiToken(hash));
      if (!entry.value) return null;
      principal = {
        memberId: entry.value.memberId,
        tokenId: entry.value.id,
        scopes: entry.value.scopes,
      };
      if (this.#known.size >= MAX_KNOWN_TOKENS) this.#known.clear();
      this.#known.set(hash, principal);
    }
    this.#lastUsed.set(principal.tokenId, [principal.memberId, this.#clock()]);
    this.#scheduleFlush();
    return principal;
  }

  /** A use not yet flushed, for `list`. */
  pendingLastUsed(tokenId: string): number | null {
    return this.#lastUsed.get(tokenId)?.[1] ?? null;
  }

  #scheduleFlush(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((err) =>
        logEvent("warn", "lastUsedAt flush failed", { cause: (err as Error).message })
      );
    }, LAST_USED_FLUSH_MS);
    // The stamp is bookkeeping: it must not keep a finished process alive.
    Deno.unrefTimer(this.#timer as unknown as number);
  }

  /**
   * Writes every pending `lastUsedAt`, ten tokens per commit, each checked to still exist: a stamp
   * must not outlive a revoked token or a deleted account (a scan then finds nothing of them).
   */
  async flush(): Promise<void> {
    const pending = [...this.#lastUsed];
    this.#lastUsed.clear();
    for (let i = 0; i < pending.length; i += 10) {
      const part = pending.slice(i, i + 10);
      await withKvRetry(async () => {
        const live = await this.#kv.getMany<ApiToken[]>(
          part.map(([tokenId, [memberId]]) => keys.apiTokenOfMember(memberId, tokenId)),
        );
        const op = this.#kv.atomic();
        part.forEach(([tokenId, [memberId, ms]], j) => {
          op.check(live[j]);
          if (live[j].value) op.set(keys.apiTokenLastUsed(memberId, tokenId), ms);
        });
        return (await op.commit()).ok ? true : RETRY;
      });
    }
  }

  /** Flushes and stops the timer (call before closing the KV). */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush().catch((err) =>
      logEvent("warn", "lastUsedAt flush failed", { cause: (err as Error).message })
    );
  }
}
