# syntax=docker/dockerfile:1
# chaintap: one image for every role (migrate, scheduler, worker, start, simulate, ...).
#   docker build -t chaintap .
#   docker run --rm chaintap --help
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Compile TypeScript with the full dependency tree.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# 2. Production dependencies only.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. Runtime: compiled code, production modules and the SQL migrations, owned by root and run as the
#    unprivileged `node` user (uid 1000) of the base image, so the process cannot rewrite its own code.
FROM ${NODE_IMAGE} AS runtime
# The ops server listens beyond loopback in a container: the commands refuse to start without
# OPS_TOKEN (docs/operations.md, "Security").
ENV NODE_ENV=production \
    OPS_HOST=0.0.0.0 \
    OPS_PORT=9464
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
USER node
EXPOSE 9464
# Liveness of the ops server (`start` and `worker`); services without one override or disable it.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
