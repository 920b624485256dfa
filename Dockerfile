# syntax=docker/dockerfile:1
# One image per service, built from only what that service needs (ADR 0038):
#   docker build --build-arg SERVICE=orders -t market/orders .
# `turbo prune` keeps the service's workspace, the packages it depends on and their part of the
# lock file; a change elsewhere leaves the image's inputs, and so its layers, unchanged.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS prune
WORKDIR /app
ARG SERVICE
RUN test -n "$SERVICE" || (echo "build with --build-arg SERVICE=<identity|catalog|orders|wallet|files|notify|admin|gateway>" && false)
COPY . .
RUN npm install --global turbo@2 && turbo prune "@market/${SERVICE}" --docker

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ARG SERVICE
# Dependencies first, from the pruned manifests only: this layer is reused until they change.
# Not `npm ci`: the lock lists only this platform's optional binaries (ADR 0014).
COPY --from=prune /app/out/json/ ./
RUN npm install --no-audit --no-fund
COPY --from=prune /app/out/full/ ./
COPY tsconfig.base.json ./
RUN npx turbo run build --filter="@market/${SERVICE}" && npm prune --omit=dev

# The broker's users and topology (ADR 0011): scripts/provision-broker.mjs drives rabbitmqctl, so it
# runs on the RabbitMQ image, with Node and a service's build (build it with SERVICE=admin: the
# contracts it reads come with it) added; RABBITMQ_NODENAME names the broker.
FROM rabbitmq:3.13-management AS provision-broker
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /app /app
COPY scripts /app/scripts
WORKDIR /app
ENV NODE_ENV=production
ENTRYPOINT []
CMD ["node", "scripts/provision-broker.mjs"]

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ARG SERVICE
ENV NODE_ENV=production SERVICE=${SERVICE} PORT=8080
COPY --from=build --chown=node:node /app /app
# the provisioning scripts run from the admin image (it carries pg and the contracts they read)
COPY --chown=node:node scripts scripts
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["sh", "-c", "exec node services/${SERVICE}/dist/main.js"]
