/**
 * Every Deno KV key the service uses. No other module builds a key literal.
 *
 * | prefix        | parts                              | value                 | TTL            |
 * | ------------- | ---------------------------------- | --------------------- | -------------- |
 * | health_probe  | probeId                            | probe time (ms)       | 60 s, deleted  |
 * | rate_limit    | policy, subject, windowIndex       | Deno.KvU64 count      | swept          |
 * | rate_limit_sweep | sweepAt (ms), counter id        | true                  | swept, +1 day  |
 * | rate_limit_sweep_lease | —                         | { owner, until }      | lease (60 s)   |
 * | members       | memberId                           | Member                | none           |
 * | usernames     | username (lower case)              | memberId              | none           |
 * | sessions      | sessionHash (SHA-256 hex)          | Session               | session expiry |
 * | sessions_by_member | memberId, sessionHash         | expiresAt (ms)        | session expiry |
 * | api_tokens    | tokenHash (SHA-256 hex)            | ApiToken              | none           |
 * | api_tokens_by_member | memberId, tokenId           | ApiToken (copy)       | none           |
 * | api_token_last_used  | memberId, tokenId           | last use (ms)         | none           |
 * | api_token_sets | memberId                          | version (number)      | none           |
 * | api_token_creates | memberId, idempotencyKey       | CreateOnce (id, name) | 1 day          |
 * | columns       | memberId                           | Column[]              | none           |
 * | entries       | memberId, dayNumber                | StoredEntry           | none           |
 * | record_versions | memberId                         | Deno.KvU64 version    | none           |
 * | pauses        | memberId                           | StoredPause[]         | none           |
 * | idempotency_keys | memberId, key                     | StoredIdempotent      | 30 days        |
 * | oauth_clients | clientId                           | OAuthClient           | 24 h if unused |
 * | oauth_client_documents | clientIdUrl (CIMD)        | OAuthClient           | 1 h            |
 * | oauth_consent_tickets | ticketHash (SHA-256 hex)   | ConsentTicket         | 10 min         |
 * | oauth_codes   | codeHash (SHA-256 hex)             | AuthorizationCode     | 5 min          |
 * | oauth_spent_codes | codeHash                       | SpentCode (grant id)  | 1 h            |
 * | oauth_grants  | memberId, grantId                  | Grant                 | none           |
 * | oauth_access_tokens | tokenHash (SHA-256 hex)      | AccessToken           | 1 h            |
 * | oauth_refresh_tokens | tokenHash (SHA-256 hex)     | RefreshToken          | 30 days        |
 * | oauth_member_secrets | memberId, prefix, hash       | expiresAt (ms)        | its secret's   |
 * | coach_due     | memberId                           | CoachDue              | 31 days        |
 * | coach_due_at  | dueAt (ms), memberId               | true                  | none, deleted  |
 * | coach_due_by_member | memberId, dueAt (ms)         | true                  | none, deleted  |
 * | coach_poll_lease | —                               | { owner, until }      | lease (60 s)   |
 * | coach_findings | memberId                          | StoredFindings        | 120 days       |
 * | push_vapid    | —                                  | VapidKeys             | none           |
 * | push_subscriptions | memberId, subscriptionId      | StoredSubscription    | none           |
 * | reminders     | memberId                           | StoredReminders       | none           |
 * | reminder_due_at | dueAt (ms), memberId             | true                  | none, deleted  |
 * | reminder_due_by_member | memberId, dueAt (ms)      | true                  | none, deleted  |
 * | reminder_poll_lease | —                            | { owner, until }      | lease (60 s)   |
 * | email_addresses | address (lower case)             | memberId              | none           |
 * | email_links   | linkHash (SHA-256 hex)             | EmailLink             | 24 h / 30 min  |
 * | email_links_by_member | memberId, linkHash         | expiresAt (ms)        | its link's     |
 * | data_format   | —                                  | format version (number) | none         |
 * | restore_in_progress | —                            | RestoreMark           | none           |
 * | kv_probe      | runId, kind, n                     | probe data            | 1 h, deleted   |
 * | record_snapshots | memberId, part                  | SnapshotPart (packed) | none, derived  |
 * | record_changes | memberId                          | RecordChanges         | none, folded   |
 * | record_other_writes | memberId                     | Deno.KvU64 count      | none           |
 *
 * `api_tokens` and `api_tokens_by_member` hold the same record; only `lib/accounts/api_tokens.ts`
 * writes them, both in one `kv.atomic()`. No key is shared by all members: every credential is
 * checked by a strongly consistent read of its own key on each request, and every record write
 * bumps `record_versions` of its member in the same commit (docs/architecture.md, "Consistency
 * across instances"). `sessions_by_member` indexes a member's sessions, written and deleted in the
 * same commit as `sessions`, so a password change or account deletion can find them.
 *
 * OAuth (lib/oauth/grants.ts writes every oauth_* key): codes are consumed with an atomic
 * check-and-delete that leaves an `oauth_spent_codes` marker, so a replay can revoke the grant
 * (RFC 6749 §4.1.2). A grant is revoked by deleting its `oauth_grants` key; every access-token
 * check reads that key, so the very next call is refused on every instance. Every record keyed by
 * a secret's hash (consent tickets, codes, spent codes, access and refresh tokens) is indexed under
 * `oauth_member_secrets` — its own key's two parts below the member — set and deleted in the
 * same commit as the secret and with the same `expireIn`, so account deletion reads the member's
 * own secrets instead of every member's (issue #21). An entry whose secret is gone (expired, or
 * written by migration step 4 for a secret consumed meanwhile) is harmless: deletion deletes both.
 *
 * Rate limits (lib/policy/rate_limit.ts): a counter grows by `sum`, which cannot carry `expireIn`,
 * so it is deleted by a sweep. The commit that first writes a counter on an instance also sets its
 * `rate_limit_sweep` key, ordered by when the counter may go; one instance at a time
 * (`rate_limit_sweep_lease`) reads that index from the front up to now and deletes both keys, so a
 * sweep reads the ended windows only, never every counter (issue #21). Account deletion deletes a
 * member's counters with their sweep keys.
 *
 * Coach (lib/coach/, DESIGN §15): every record write sets `coach_due` (when the debounced run is
 * due; its presence also marks the member active for the daily run) and, in the same atomic, the
 * due-time index `coach_due_at` (lib/foundation/due_index.ts). No key is enqueued: KV Connect and
 * the new Deno Deploy have no queues (issue #21). One instance at a time (`coach_poll_lease`) reads
 * `coach_due_at` from the front up to now, runs each due member and deletes its key, and a run
 * sets the member's next daily key while `coach_due` lives. `coach_due_by_member` mirrors every
 * `coach_due_at` key, in the same commits, so account deletion finds a member's keys. `coach_findings` holds
 * the findings, the analysed version and the run lease; only lib/coach/ writes it, and bumps
 * `record_versions` in the same commit so record caches serve the new findings.
 *
 * Reminders (lib/notify/, issue #24): `push_vapid` is the service's one VAPID key pair (RFC 8292),
 * created once with a create-only commit so every instance signs with the same key. A member's
 * `reminders` hold their reminder times and the next due time; the same due-time index as the
 * coach's (`reminder_due_at`, mirrored by `reminder_due_by_member`) is set in the commit that
 * saves them. A poll claims a due reminder by a commit checked against `reminders` as read that
 * moves it to its next due time; only the instance whose commit succeeds sends it, so a reminder
 * goes out once however many instances poll. `push_subscriptions` are the member's browsers.
 *
 * E-mail (lib/accounts/email.ts, issue #24): `email_addresses` claims a verified address for one
 * member (create-only, like `usernames`), so a password reset finds the account by it.
 * `email_links` hold the single-use links the service mails — address verification and password
 * reset — by the SHA-256 of the link's secret, with `expireIn`; using one deletes it in a commit
 * checked against it, so a link works once. `email_links_by_member` mirrors them (set and deleted
 * in the same commits) so a new link, a reset and account deletion find the member's own.
 */
export const keys = {
  /** Written and read back by the health check to prove a real KV round trip. */
  healthProbe: (probeId: string) => ["health_probe", probeId] as const,
  /** One fixed window of a sliding-window rate-limit counter (DESIGN §6). */
  rateLimitWindow: (policy: string, subject: string, windowIndex: number) =>
    ["rate_limit", policy, subject, windowIndex] as const,
  /** List prefix of every rate-limit counter (swept when their windows end). */
  rateLimitPrefix: () => ["rate_limit"] as const,
  /** List prefix of one subject's counters under one policy (account deletion removes them). */
  rateLimitOfSubject: (policy: string, subject: string) => ["rate_limit", policy, subject] as const,
  /**
   * The sweep index of one counter: when it may go (`rateLimitSweepAt`) and which it is
   * (`rateLimitCounterId`). Ordered by time, so the sweep lists only ended windows (issue #21).
   */
  rateLimitSweep: (sweepAt: number, counterId: string) =>
    ["rate_limit_sweep", sweepAt, counterId] as const,
  /** List prefix of the sweep index. */
  rateLimitSweepAll: () => ["rate_limit_sweep"] as const,
  /** The sweep's lease: one instance sweeps at a time. */
  rateLimitSweepLease: () => ["rate_limit_sweep_lease"] as const,
  /** A member account (credentials and profile). */
  member: (memberId: string) => ["members", memberId] as const,
  /** Case-insensitive username claim; create-only, so a name is taken exactly once. */
  username: (usernameLower: string) => ["usernames", usernameLower] as const,
  /** A signed-in session, by the SHA-256 of its token. */
  session: (sessionHash: string) => ["sessions", sessionHash] as const,
  /** Index of a member's sessions (password change and account deletion end them). */
  sessionOfMember: (memberId: string, sessionHash: string) =>
    ["sessions_by_member", memberId, sessionHash] as const,
  /** List prefix of a member's sessions. */
  sessionsOfMember: (memberId: string) => ["sessions_by_member", memberId] as const,
  /** An API token, by the SHA-256 of its secret (the bearer lookup). */
  apiToken: (tokenHash: string) => ["api_tokens", tokenHash] as const,
  /** A member's API token, by id (for list and revoke). */
  apiTokenOfMember: (memberId: string, tokenId: string) =>
    ["api_tokens_by_member", memberId, tokenId] as const,
  /** List prefix of a member's API tokens. */
  apiTokensOfMember: (memberId: string) => ["api_tokens_by_member", memberId] as const,
  /** When a token was last used, flushed in batches (never a write per request). */
  apiTokenLastUsed: (memberId: string, tokenId: string) =>
    ["api_token_last_used", memberId, tokenId] as const,
  /** Bumped by every token create; serialises the per-member token bound. */
  apiTokenSetVersion: (memberId: string) => ["api_token_sets", memberId] as const,
  /**
   * A token create already made under a client's `Idempotency-Key` (the Settings form's one-time
   * nonce, issue #25): set in the same commit as the token, so a resubmission makes no second one.
   */
  apiTokenCreate: (memberId: string, key: string) => ["api_token_creates", memberId, key] as const,
  /** List prefix of a member's remembered token creates (account deletion). */
  apiTokenCreatesOf: (memberId: string) => ["api_token_creates", memberId] as const,
  /** A member's columns, in display order. */
  columns: (memberId: string) => ["columns", memberId] as const,
  /** One member-local day's values. */
  entry: (memberId: string, day: number) => ["entries", memberId, day] as const,
  /** List prefix of a member's entries (ordered by day). */
  entriesOf: (memberId: string) => ["entries", memberId] as const,
  /** A member's pauses (lib/record/pauses.ts, issue #25): days that count as skipped. */
  pauses: (memberId: string) => ["pauses", memberId] as const,
  /** Bumped by every write to a member's record; per-instance record caches key on it. */
  recordVersion: (memberId: string) => ["record_versions", memberId] as const,
  /**
   * A packed copy of a member's entries in parts of at most 64 KB (lib/record/record_snapshot.ts,
   * issue #22): derived, rebuilt from the entries whenever it is missing.
   */
  recordSnapshot: (memberId: string, part: number) => ["record_snapshots", memberId, part] as const,
  /** List prefix of a member's snapshot parts. */
  recordSnapshotsOf: (memberId: string) => ["record_snapshots", memberId] as const,
  /** The days written since the snapshot was built: rewritten in the same commit as an entry. */
  recordChanges: (memberId: string) => ["record_changes", memberId] as const,
  /**
   * Record writes that change no entry (profile, columns, coach findings): with the writes in
   * `record_changes`, they account for every bump of `record_versions` since the snapshot.
   */
  recordOtherWrites: (memberId: string) => ["record_other_writes", memberId] as const,
  /**
   * A change already applied under a client's `Idempotency-Key` (lib/record/store.ts `saveEntry`,
   * issue #24): set in the same commit as the entry, so a replay finds it and changes nothing.
   */
  idempotencyKey: (memberId: string, key: string) => ["idempotency_keys", memberId, key] as const,
  /** List prefix of a member's idempotency keys (account deletion). */
  idempotencyKeysOf: (memberId: string) => ["idempotency_keys", memberId] as const,
  /**
   * A dynamically registered OAuth client (RFC 7591): `expireIn` 24 h and `expiresAt` until its
   * first grant, whose commit stores it again without either (lib/oauth/grants.ts).
   */
  oauthClient: (clientId: string) => ["oauth_clients", clientId] as const,
  /** A fetched Client ID Metadata Document, cached by its URL. */
  oauthClientDocument: (clientIdUrl: string) => ["oauth_client_documents", clientIdUrl] as const,
  /** A pending consent: the authorization request, bound to the member's session. */
  oauthConsentTicket: (ticketHash: string) => ["oauth_consent_tickets", ticketHash] as const,
  /** An unused authorization code. */
  oauthCode: (codeHash: string) => ["oauth_codes", codeHash] as const,
  /** A redeemed authorization code, kept to detect replay. */
  oauthSpentCode: (codeHash: string) => ["oauth_spent_codes", codeHash] as const,
  /** A member's grant to one OAuth client (a "connected app"). */
  oauthGrant: (memberId: string, grantId: string) => ["oauth_grants", memberId, grantId] as const,
  /** List prefix of a member's grants. */
  oauthGrantsOf: (memberId: string) => ["oauth_grants", memberId] as const,
  /** An OAuth access token. */
  oauthAccessToken: (tokenHash: string) => ["oauth_access_tokens", tokenHash] as const,
  /** An OAuth refresh token (kept after rotation, marked, to detect reuse). */
  oauthRefreshToken: (tokenHash: string) => ["oauth_refresh_tokens", tokenHash] as const,
  /** Index entry of one of a member's OAuth secrets: the secret's key (prefix, hash) below them. */
  oauthSecretOfMember: (memberId: string, secretKey: OAuthSecretKey) =>
    ["oauth_member_secrets", memberId, secretKey[0], secretKey[1]] as const,
  /** List prefix of a member's OAuth secrets (account deletion). */
  oauthSecretsOfMember: (memberId: string) => ["oauth_member_secrets", memberId] as const,
  /** When the member's debounced coach run is due; present = wrote in the last 31 days. */
  coachDue: (memberId: string) => ["coach_due", memberId] as const,
  /** List prefix of every recently active member (migration step 5 indexes them). */
  coachDueAll: () => ["coach_due"] as const,
  /** The coach's due-time index: `memberId` is due for a run at `dueAt` (ms). */
  coachDueAt: (dueAt: number, memberId: string) => ["coach_due_at", dueAt, memberId] as const,
  /** List prefix of the coach's due-time index (read from the front, up to now). */
  coachDueAtAll: () => ["coach_due_at"] as const,
  /** The same due key by member, set and deleted with it (account deletion finds them here). */
  coachDueOfMember: (memberId: string, dueAt: number) =>
    ["coach_due_by_member", memberId, dueAt] as const,
  /** List prefix of one member's due keys. */
  coachDuesOfMember: (memberId: string) => ["coach_due_by_member", memberId] as const,
  /** The lease of the coach's poll: one instance polls at a time. */
  coachPollLease: () => ["coach_poll_lease"] as const,
  /** The service's VAPID key pair (RFC 8292), made on first start and never rotated by code. */
  pushVapid: () => ["push_vapid"] as const,
  /** One browser's push subscription (RFC 8030), by a hash of its endpoint. */
  pushSubscription: (memberId: string, subscriptionId: string) =>
    ["push_subscriptions", memberId, subscriptionId] as const,
  /** List prefix of a member's push subscriptions. */
  pushSubscriptionsOf: (memberId: string) => ["push_subscriptions", memberId] as const,
  /** A member's reminder times and when the next one is due. */
  reminders: (memberId: string) => ["reminders", memberId] as const,
  /** The reminders' due-time index: `memberId` has a reminder due at `dueAt` (ms). */
  reminderDueAt: (dueAt: number, memberId: string) => ["reminder_due_at", dueAt, memberId] as const,
  /** List prefix of the reminders' due-time index. */
  reminderDueAtAll: () => ["reminder_due_at"] as const,
  /** The same due key by member (account deletion and a settings change find it here). */
  reminderDueOfMember: (memberId: string, dueAt: number) =>
    ["reminder_due_by_member", memberId, dueAt] as const,
  /** List prefix of one member's reminder due keys. */
  reminderDuesOfMember: (memberId: string) => ["reminder_due_by_member", memberId] as const,
  /** The lease of the reminders' poll. */
  reminderPollLease: () => ["reminder_poll_lease"] as const,
  /** A verified e-mail address's claim: which member it belongs to (create-only). */
  emailAddress: (addressLower: string) => ["email_addresses", addressLower] as const,
  /** A single-use e-mail link (verification or password reset), by the SHA-256 of its secret. */
  emailLink: (linkHash: string) => ["email_links", linkHash] as const,
  /** The same link by member (a new link replaces the old; deletion finds them). */
  emailLinkOfMember: (memberId: string, linkHash: string) =>
    ["email_links_by_member", memberId, linkHash] as const,
  /** List prefix of a member's e-mail links. */
  emailLinksOfMember: (memberId: string) => ["email_links_by_member", memberId] as const,
  /** The member's stored coach findings, analysed version and run lease. */
  coachFindings: (memberId: string) => ["coach_findings", memberId] as const,
  /**
   * The data-format version of the whole KV (lib/operations/migrations.ts): start-up refuses a KV
   * whose version differs from the code's; `deno task admin migrate` brings an older one up.
   */
  dataFormat: () => ["data_format"] as const,
  /**
   * Present only while `deno task admin restore` fills this KV (lib/operations/backup.ts): which
   * backup, and how far; each restore commit checks it, and start-up refuses a KV that has it.
   */
  restoreInProgress: () => ["restore_in_progress"] as const,
  /**
   * Keys `deno task kv:probe` writes to measure a KV's round trips (scripts/kv_probe.ts): its own
   * run's, deleted when it ends and expiring within the hour if it is killed.
   */
  kvProbe: (runId: string, kind: string, n: number) => ["kv_probe", runId, kind, n] as const,
  /** List prefix of one probe run's keys of one kind. */
  kvProbeOf: (runId: string, kind: string) => ["kv_probe", runId, kind] as const,
  /** List prefix of every key (backup, restore into an empty KV, stats). */
  everything: () => [] as const,
  /** List prefix of every member account (migrations). */
  membersAll: () => ["members"] as const,
  /** List prefix of every username claim, in username order (`admin members`, page by page). */
  usernamesAll: () => ["usernames"] as const,
  /** List prefix of every session (migration step 1 indexes them by member). */
  sessionsAll: () => ["sessions"] as const,
  /** List prefix of every API token, by hash (`admin stats`). */
  apiTokensAll: () => ["api_tokens"] as const,
  /** List prefix of every member's entries (`admin stats`). */
  entriesAll: () => ["entries"] as const,
  /** List prefix of every OAuth grant (`admin stats`). */
  oauthGrantsAll: () => ["oauth_grants"] as const,
  /**
   * Prefixes the service no longer writes (the `kv.watch` cache epoch, replaced in issue #9 by
   * strong per-request reads); migration step 3 deletes what an older version left.
   */
  retiredPrefixes: () => [["cache_epoch"], ["cache_epoch_seen"]] as const,
  /** The daily tick of the coach's retired queue (issue #21); migration step 5 deletes it. */
  retiredCoachDaily: () => ["coach_daily"] as const,
  /**
   * List prefixes of the OAuth records keyed by a secret's hash (each value names its member);
   * only migration step 4 scans them, to index what was written before `oauth_member_secrets`.
   */
  oauthSecretPrefixes: () =>
    [
      ["oauth_consent_tickets"],
      ["oauth_codes"],
      ["oauth_spent_codes"],
      ["oauth_access_tokens"],
      ["oauth_refresh_tokens"],
    ] as const,
};

/** The key of an OAuth record keyed by a secret's hash: `[prefix, hash]` (`oauthCode` etc.). */
export type OAuthSecretKey = readonly [string, string];

/**
 * Whether a backup of a remote KV keeps a prefix's keys (issue #21, "Backups on a remote KV"):
 * every prefix of `keys` is declared here, once. A remote KV has no file to copy in one read
 * transaction, so its backup repeats a walk until two walks agree (lib/operations/backup.ts); keys
 * that change under ordinary traffic — the limiter's counters flushed every few milliseconds,
 * health probes, last-used stamps, the coach's poll lease — would keep any two walks apart, and
 * short-lived caches and OAuth secrets (consent tickets, codes, access tokens: minutes to an hour)
 * are not worth restoring. `volatile` keys are left out of a remote backup, never read by its walk;
 * a service restored without them works: counters start from zero, a stamp reads "never used"
 * until the next use, an agent refreshes its access token with its refresh token (kept) and a
 * pending consent is asked again. Backups of a KV file (`VACUUM INTO`) keep every key.
 */
export const KEY_DURABILITY = {
  health_probe: "volatile",
  rate_limit: "volatile",
  rate_limit_sweep: "volatile",
  rate_limit_sweep_lease: "volatile",
  members: "durable",
  usernames: "durable",
  sessions: "durable",
  sessions_by_member: "durable",
  api_tokens: "durable",
  api_tokens_by_member: "durable",
  api_token_last_used: "volatile",
  api_token_sets: "durable",
  api_token_creates: "volatile",
  columns: "durable",
  entries: "durable",
  idempotency_keys: "durable",
  record_versions: "durable",
  pauses: "durable",
  oauth_clients: "durable",
  oauth_client_documents: "volatile",
  oauth_consent_tickets: "volatile",
  oauth_codes: "volatile",
  oauth_spent_codes: "volatile",
  oauth_grants: "durable",
  oauth_access_tokens: "volatile",
  oauth_refresh_tokens: "durable",
  oauth_member_secrets: "durable",
  coach_due: "durable",
  coach_due_at: "durable",
  coach_due_by_member: "durable",
  coach_poll_lease: "volatile",
  coach_findings: "durable",
  push_vapid: "durable",
  push_subscriptions: "durable",
  reminders: "durable",
  reminder_due_at: "durable",
  reminder_due_by_member: "durable",
  reminder_poll_lease: "volatile",
  email_addresses: "durable",
  email_links: "volatile",
  email_links_by_member: "volatile",
  data_format: "durable",
  restore_in_progress: "durable",
  kv_probe: "volatile",
  // derived from the entries and rebuilt when missing (lib/record/record_snapshot.ts)
  record_snapshots: "volatile",
  record_changes: "volatile",
  record_other_writes: "volatile",
} as const satisfies Record<string, "durable" | "volatile">;

/**
 * When a rate-limit counter of window `windowIndex` (of `windowSeconds`) can no longer matter: the
 * end of the window after it, the last in which it weighs as the previous window (DESIGN §6).
 */
export function rateLimitSweepAt(windowIndex: number, windowSeconds: number): number {
  return (windowIndex + 2) * windowSeconds * 1000;
}

/** The id of a counter in the sweep index: its key's parts below `rate_limit`, as JSON. */
export function rateLimitCounterId(policy: string, subject: string, windowIndex: number): string {
  return JSON.stringify([policy, subject, windowIndex]);
}

/** The counter key a sweep index id names, or null for an id this code did not write. */
export function rateLimitCounterOf(counterId: string): Deno.KvKey | null {
  try {
    const [policy, subject, index] = JSON.parse(counterId);
    if (typeof policy !== "string" || typeof subject !== "string") return null;
    if (!Number.isInteger(index)) return null;
    return keys.rateLimitWindow(policy, subject, index);
  } catch {
    return null;
  }
}

/** The volatile prefixes (`KEY_DURABILITY`), in key order. */
export const volatilePrefixes = (): string[] =>
  Object.entries(KEY_DURABILITY).filter(([, d]) => d === "volatile").map(([p]) => p).sort();

/**
 * Whether a remote backup leaves `key` out: a volatile prefix, or an `oauth_member_secrets` index
 * entry of a volatile secret (its third part names the secret's prefix), which would otherwise
 * change with every access token issued.
 */
export function isVolatileKey(key: Deno.KvKey): boolean {
  const durability = KEY_DURABILITY as Record<string, string>;
  if (durability[String(key[0])] === "volatile") return true;
  return key[0] === "oauth_member_secrets" && durability[String(key[2])] === "volatile";
}
