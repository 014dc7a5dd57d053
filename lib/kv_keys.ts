/**
 * Every Deno KV key the service uses. No other module builds a key literal.
 *
 * | prefix        | parts                              | value                 | TTL            |
 * | ------------- | ---------------------------------- | --------------------- | -------------- |
 * | health_probe  | —                                  | last probe time (ms)  | 60 s           |
 * | rate_limit    | policy, subject, windowIndex       | Deno.KvU64 count      | 2 windows      |
 */
export const keys = {
  /** Written and read back by the health check to prove a real KV round trip. */
  healthProbe: () => ["health_probe"] as const,
  /** One fixed window of a sliding-window rate-limit counter (DESIGN §6). */
  rateLimitWindow: (policy: string, subject: string, windowIndex: number) =>
    ["rate_limit", policy, subject, windowIndex] as const,
  /** List prefix of every rate-limit counter (swept when their windows end). */
  rateLimitPrefix: () => ["rate_limit"] as const,
};
