/** The benchmark's ceiling: a bare `Deno.serve` answering a fixed JSON body. */

const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });
Deno.serve(
  { port: Number(Deno.env.get("PORT") ?? 18002), hostname: "127.0.0.1", onListen: () => {} },
  async (req) => {
    await req.body?.cancel();
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
);
