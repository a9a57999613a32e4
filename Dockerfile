# understudy: the platform API (/api/v2) and the secrets API (/v1) on one port.
#   docker build -t understudy .
#   docker run --rm -p 127.0.0.1:8200:8200 understudy   (loopback only: the tokens are well known)

# --- build: compile better-sqlite3 and the TypeScript, then drop dev dependencies -------------
FROM node:22-bookworm-slim AS build

# better-sqlite3 falls back to a source build when no prebuilt binary can be fetched.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# node-gyp builds against the headers the image already ships instead of downloading them.
ENV npm_config_nodedir=/usr/local

# Dependencies first, so editing the source does not invalidate this layer. Scripts are off
# because `prepare` would compile src/, which is not copied yet; only the native addons need their
# own install step (better-sqlite3, and pkcs11js for managed keys).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
    && npm rebuild better-sqlite3 pkcs11js

# Everything `npm run build` reads: the build script, the launcher it bundles as dist/main.js, the
# sources, tsconfig.json (esbuild reads it), and the migrations (the build runs them once for the
# image a fresh in-memory store starts from). test/ops/container.test.ts checks this list.
COPY tsconfig.json ./
COPY migrations ./migrations
COPY scripts/build.mjs scripts/launcher.mjs ./scripts/
COPY src ./src
RUN npm run build \
    && npm prune --omit=dev --no-audit --no-fund

# --- runtime: compiled output, production dependencies, migrations and seed only -------------
FROM node:22-bookworm-slim AS runtime

# 0.0.0.0 is what a published port reaches; with the well-known default tokens that bind takes the
# opt-in, which is safe only while the port is published on loopback (-p 127.0.0.1:8200:8200).
ENV NODE_ENV=production \
    UNDERSTUDY_HOST=0.0.0.0 \
    UNDERSTUDY_ALLOW_INSECURE_BIND=true \
    UNDERSTUDY_PORT=8200

WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node migrations ./migrations
COPY --chown=node:node fixtures ./fixtures

# The default store (data/understudy.sqlite) lives here; the directory must belong to the
# unprivileged user before it becomes a volume, or a fresh named volume is root-owned.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data

# The image's built-in unprivileged user (uid 1000).
USER node
EXPOSE 8200

# The slim image has no curl; node's fetch does the same job. /_emulator/health stays open even
# when UNDERSTUDY_CONTROL_TOKEN guards the rest of the control plane.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["node", "-e", "const tls = process.env.UNDERSTUDY_TLS === 'auto' || !!process.env.UNDERSTUDY_TLS_CERT; require(tls ? 'https' : 'http').get({ host: '127.0.0.1', port: process.env.UNDERSTUDY_PORT || 8200, path: '/_emulator/health', rejectUnauthorized: false }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]

# Exec form: node is PID 1 and receives SIGTERM directly; main.ts closes the server on it.
CMD ["node", "dist/main.js"]
