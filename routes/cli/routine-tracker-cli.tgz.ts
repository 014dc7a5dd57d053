/** `GET /cli/routine-tracker-cli.tgz`: the CLI as an npm tarball with this instance's base URL. */

import { buildCliTarball } from "../../lib/documents/cli_package.ts";
import { CLI_PACKAGE_NAME } from "../../lib/documents/discovery.ts";
import { define } from "../../lib/http/kernel/define.ts";
import { serveDocument } from "../../lib/http/kernel/discovery_response.ts";

export const handler = define.handlers({
  GET: (c) =>
    serveDocument(c, "cli-tarball", async (base) => ({
      body: await buildCliTarball(base),
      contentType: "application/gzip",
      headers: { "Content-Disposition": `attachment; filename="${CLI_PACKAGE_NAME}.tgz"` },
    })),
});
