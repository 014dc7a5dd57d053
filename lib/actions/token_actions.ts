/** The actions of `POST /api/tokens`: the caller's own API tokens; sessions only (DESIGN §7). */

import { createApiToken, listApiTokens, revokeApiToken } from "../accounts/api_tokens.ts";
import {
  ApiTokenListResponse,
  CreatedApiTokenResponse,
  RevokedTokenResponse,
  TokensRequest,
} from "../accounts/token_messages.ts";
import { action, payloadOf } from "./action_table.ts";

/** Every action of `/api/tokens`, by name. */
export const TOKEN_ACTIONS = {
  create: action({
    errors: ["invalid_scope", "too_many_tokens", "already_created"],
    credential: "session",
    // A retried create (a reloaded Settings form's nonce) makes no second token (issue #25).
    idempotent: true,
    input: payloadOf(TokensRequest, "create"),
    output: CreatedApiTokenResponse,
    status: () => 201,
    run: (ctx, body, { memberId }) =>
      createApiToken({
        kv: ctx.kv,
        clock: ctx.clock,
        memberId,
        name: body.name,
        scopes: body.scopes,
        idempotencyKey: ctx.idempotencyKey,
      }),
  }),
  list: action({
    credential: "session",
    input: payloadOf(TokensRequest, "list"),
    output: ApiTokenListResponse,
    run: async (ctx, _input, { memberId }) => ({
      tokens: await listApiTokens(ctx.kv, memberId, ctx.access.tokens),
    }),
  }),
  revoke: action({
    errors: ["not_found"],
    credential: "session",
    input: payloadOf(TokensRequest, "revoke"),
    output: RevokedTokenResponse,
    run: async (ctx, { id }, { memberId }) => {
      await revokeApiToken(ctx.kv, memberId, id);
      return { revoked: true, id };
    },
  }),
} as const;
