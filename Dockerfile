# Routine Tracker on Deno's official image (docs: /docs/self-hosting "Docker").
#   docker build -t routine-tracker .
#   docker run -d -p 127.0.0.1:8000:8000 -v rt-data:/data -e BASE_URL=https://tracker.example.org routine-tracker
FROM denoland/deno:2.9.6

WORKDIR /app
COPY . .
# Bundle the browser islands and fill Deno's module cache at build time: the container starts
# without fetching anything.
RUN deno task build && deno cache --unstable-kv main.ts scripts/*.ts \
  && mkdir -p /data && chown deno:deno /data

ENV PORT=8000 \
    KV_PATH=/data/kv.sqlite3 \
    DENO_NO_UPDATE_CHECK=1
VOLUME /data
EXPOSE 8000
USER deno

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:8000/api/proxy', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{\"action\":\"healthCheck\"}' }); Deno.exit(r.ok ? 0 : 1);"]

# The image's entrypoint prefixes `deno`. Write access only to the data volume.
CMD ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write=/data", "--unstable-kv", "--v8-flags=--max-old-space-size=192,--max-semi-space-size=4", "main.ts"]
