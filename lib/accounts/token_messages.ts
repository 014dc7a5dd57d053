/**
 * Request and response bodies of `POST /api/tokens` (DESIGN §7). The route parses with
 * `TokensRequest`; the OpenAPI description (lib/documents/openapi.ts) is generated from the same schemas.
 */

import { z } from "zod";
import { TokenScopes } from "./api_tokens.ts";
import { prefixOf } from "../foundation/secrets.ts";

/** The body of `POST /api/tokens`, one branch per action. */
export const TokensRequest = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("create"),
    name: z.string().trim().min(1).max(80),
    scopes: TokenScopes,
  }).strict(),
  z.object({ action: z.literal("list") }).strict(),
  z.object({ action: z.literal("revoke"), id: z.string().min(1).max(64) }).strict(),
], { error: 'Unknown or missing "action": one of create, list, revoke.' });

/** A token as `list` shows it (`ApiTokenView`): never the secret or its hash. */
export const ApiTokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  prefixHint: z.string().meta({ description: "The first characters of the token string." }),
}).strict();

/** What `create` answers (201): the view plus the token string, shown this once. */
export const CreatedApiTokenResponse = ApiTokenViewSchema.extend({
  token: z.string().startsWith(prefixOf("apiToken")).meta({
    description: `The API token (${
      prefixOf("apiToken")
    }…); send it as \`Authorization: Bearer\`. Shown once.`,
  }),
}).strict();

/** What `list` answers. */
export const ApiTokenListResponse = z.object({ tokens: z.array(ApiTokenViewSchema) }).strict();

/** What `revoke` answers. */
export const RevokedTokenResponse = z.object({ revoked: z.literal(true), id: z.string() })
  .strict();

/** The response schema of each action, for the OpenAPI description. */
export const TOKENS_RESPONSES = {
  create: CreatedApiTokenResponse,
  list: ApiTokenListResponse,
  revoke: RevokedTokenResponse,
} as const;
