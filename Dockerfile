# Multi-stage: the build stage has the compilers and dev dependencies; the final image has only the
# compiled service, its production dependencies, pg_dump and no build tools. hadolint's settings:
# .hadolint.yaml; building it without an image registry (podman, a Debian base): docs/operations.md.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles a native module when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 DATABASE_URL=sqlite:/data/eventgraph.sqlite
# pg_dump and pg_restore for `eventgraph backup` / `restore` on PostgreSQL. Bookworm's client is 15,
# the major of deploy/compose.yaml's server: pg_dump refuses a server newer than itself.
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-client \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown node:node /data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/bin ./bin
# What the server reads at run time beside dist/ (the pages' stylesheets and scripts, the guides):
# without them it stops at start with ENOENT.
COPY --from=build --chown=node:node /app/src/dashboard/assets ./src/dashboard/assets
COPY --from=build --chown=node:node /app/src/event-site/assets ./src/event-site/assets
COPY --from=build --chown=node:node /app/src/docs/assets ./src/docs/assets
COPY --from=build --chown=node:node /app/docs/guides ./docs/guides
USER node
VOLUME ["/data"]
EXPOSE 4000
# On the port the server listens on: PORT may be set at run time (with --network=host it must be).
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
