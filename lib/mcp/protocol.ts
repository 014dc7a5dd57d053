/** MCP revisions, JSON-RPC codes and message shapes (reference/spec-anchors.md §1–3). */

/** Revisions negotiated through `initialize` (2024-11-05 … 2025-11-25), newest first. */
export const INITIALIZE_REVISIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
] as const;

/** Revisions spoken without `initialize`, with `_meta` on every request (2026-07-28). */
export const PER_REQUEST_REVISIONS = ["2026-07-28"] as const;

/** Every revision the server speaks, newest first. */
export const SUPPORTED_REVISIONS: readonly string[] = [
  ...PER_REQUEST_REVISIONS,
  ...INITIALIZE_REVISIONS,
];

/**
 * Revision assumed when a legacy request carries no `MCP-Protocol-Version` header
 * (MCP 2025-06-18 transports: "assume 2025-03-26").
 */
export const DEFAULT_HEADERLESS_REVISION = "2025-03-26";

/** `_meta` keys of the 2026-07-28 per-request form. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** Our vendor `_meta` key marking synthetic data (DESIGN §9). */
export const META_SYNTHETIC = "routine-tracker/synthetic";

/** JSON-RPC 2.0 and MCP error codes used by the server. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** 2026-07-28: an MCP header disagrees with the body. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the requested revision is not spoken. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/** A JSON-RPC id (MCP forbids null). */
export type RpcId = string | number;
