/**
 * Resolves session tokens with the fewest round trips (issue #21, item 5). A session is checked by
 * a strongly consistent read of its own key on every request, so a sign-out, password change or
 * account deletion committed by any instance is seen at once (docs/architecture.md, "Consistency
 * across instances"). Only what never changes — which member a session hash stands for — is
 * remembered per instance (`memberOf`), so a known session's page reads the session, the member
 * and (lib/record/member_access.ts adds it to the same batch) the member's record version in one
 * round trip where it took three, each one a request to the primary on a remote KV.
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import { type Member, type Session } from "./accounts.ts";
import { hashSecret, isTokenOf } from "../foundation/secrets.ts";

/** A live session, read on this request. */
export interface LiveSession {
  memberId: string;
  expiresAt: number;
}

/** A live session with its member, read together on this request. */
export interface SessionWithMember extends LiveSession {
  member: Member;
}

/** At most this many session → member mappings are remembered per instance. */
const MAX_KNOWN_SESSIONS = 10_000;

/** Session checks of one instance; see the module comment. */
export class SessionResolver {
  readonly #clock: Clock;
  readonly #reader: StrongReader;
  /** Session hash → member id: immutable, never trusted without the strong read. */
  readonly #known = new Map<string, string>();

  constructor(clock: Clock, reader: StrongReader) {
    this.#clock = clock;
    this.#reader = reader;
  }

  /** The member a session was seen to stand for (immutable, so safe to remember); nothing is read. */
  memberOf(token: string): string | undefined {
    return isTokenOf("session", token) ? this.#known.get(hashSecret(token)) : undefined;
  }

  /** The session of `token` (one read), or `null` when unknown, expired or signed out. */
  async resolve(token: string): Promise<LiveSession | null> {
    if (!isTokenOf("session", token)) return null;
    const hash = hashSecret(token);
    return this.#live(hash, await this.#reader.get<Session>(keys.session(hash)));
  }

  /**
   * The session with its member: one read for a session this instance has seen, two for a new
   * one. `null` when the session or the account is gone.
   */
  async resolveWithMember(token: string): Promise<SessionWithMember | null> {
    if (!isTokenOf("session", token)) return null;
    const hash = hashSecret(token);
    const memberId = this.#known.get(hash) ?? (await this.resolve(token))?.memberId;
    if (memberId === undefined) return null;
    const [session, member] = await this.#reader.getMany<[Session, Member]>([
      keys.session(hash),
      keys.member(memberId),
    ]);
    const live = this.#live(hash, session);
    if (!live || live.memberId !== memberId || !member.value) return null;
    return { ...live, member: member.value };
  }

  #live(hash: string, entry: Deno.KvEntryMaybe<Session>): LiveSession | null {
    if (!entry.value) {
      this.#known.delete(hash);
      return null;
    }
    if (entry.value.expiresAt <= this.#clock()) return null;
    if (this.#known.size >= MAX_KNOWN_SESSIONS) this.#known.clear();
    this.#known.set(hash, entry.value.memberId);
    return { memberId: entry.value.memberId, expiresAt: entry.value.expiresAt };
  }
}
