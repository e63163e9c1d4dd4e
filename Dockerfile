# syntax=docker/dockerfile:1
# The amsflow worker image. Two stages: `build` compiles dist/ with `npm run build` (the same
# command CI and `npm pack` use); the runtime stage has production dependencies only and runs
# as the unprivileged `node` user. Install scripts are skipped (--ignore-scripts): the package's
# postinstall (scripts/setup.ts) fetches the Temporal dev server binaries and chromium, which a
# worker talking to the cluster at TEMPORAL_ADDRESS never uses.
# Configuration: the environment variables of worker/config.ts (see .env.example).

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json index.ts ./
COPY protocol ./protocol
COPY messaging ./messaging
COPY activities ./activities
COPY workflows ./workflows
COPY worker ./worker
COPY client ./client
COPY simulator ./simulator
COPY testing ./testing
COPY codec ./codec
COPY tools ./tools
COPY core ./core
COPY examples/reference ./examples/reference
RUN npm run build

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production \
    AMSFLOW_METRICS_PORT=9464 \
    AMSFLOW_METRICS_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY simulator/web ./simulator/web
USER node
EXPOSE 9464
# node is the container's PID 1 and answers SIGTERM (docker stop) and SIGINT itself with the clean
# drain (worker/stop-signals.ts); give it 45 s before SIGKILL (docker-compose.yml: stop_grace_period).
CMD ["node", "dist/worker/main.js"]
