/** `GET /`: the landing page, pointing people and agents at the docs and the sandbox. */

import { define } from "../lib/http/define.ts";
import { Layout, renderPage } from "../lib/http/render.tsx";

function Home({ baseUrl }: { baseUrl: string }) {
  return (
    <Layout title="Your routine, read by the tools you choose">
      <h1>Routine Tracker</h1>
      <p class="lead">
        Log your daily routine (sleep, steps, mood, workouts, medication) and let the AI agents and
        apps you choose read it, read-only.
      </p>
      <ul>
        <li>
          <a href="/docs/mcp">MCP server</a>: 18 read-only tools at <code>{baseUrl}/api/mcp</code>
        </li>
        <li>
          <a href="/docs/sandbox">Sandbox</a>: try every tool on a synthetic member, no account
          needed, at <code>{baseUrl}/api/sandbox</code>
        </li>
        <li>
          <a href="/docs/mcp-tools">Tool reference</a>
        </li>
      </ul>
    </Layout>
  );
}

export const handler = define.handlers({
  GET(c) {
    return c.html(renderPage(<Home baseUrl={c.var.deps.config.baseUrl} />));
  },
});
