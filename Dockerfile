# Multi-stage: the build stage has the compilers and dev dependencies; the final image has only the
# compiled service, its production dependencies and no build tools. Not built on the development
# machine (no Docker there): see docs/operations.md.
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
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/bin ./bin
RUN mkdir /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:4000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# A larger young generation (docs/decisions.md, "V8's young generation"): under 50 concurrent API
# requests the default 16 MiB semi-space promoted short-lived rows and answers into the old space,
# and garbage collection took a fifth of the CPU time.
CMD ["node", "--max-semi-space-size=64", "dist/src/main.js"]
