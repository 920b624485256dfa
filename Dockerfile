# syntax=docker/dockerfile:1
# One multi-target image build: `docker build --target identity .` gives the identity service, etc.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.base.json jest.preset.js ./
COPY packages packages
COPY services services
COPY scripts scripts
# Not `npm ci`: the lock is written where the registry serves only this platform's optional
# binaries (@swc/core, turbo, …), and `npm ci` refuses a lock that lacks the others. `npm install`
# against the committed lock installs exactly its versions for linux-x64 (ADR 0014).
RUN npm install --no-audit --no-fund && npx turbo run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build --chown=node:node /app /app
USER node

FROM runtime AS provision
CMD ["node", "scripts/provision-db.mjs"]

# The broker's users and topology (ADR 0011): scripts/provision-broker.mjs drives rabbitmqctl, so it
# runs on the RabbitMQ image, with Node and the built workspace added; RABBITMQ_NODENAME names the broker.
FROM rabbitmq:3.13-management AS provision-broker
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /app /app
WORKDIR /app
ENV NODE_ENV=production
ENTRYPOINT []
CMD ["node", "scripts/provision-broker.mjs"]

FROM runtime AS gateway
EXPOSE 8080
CMD ["node", "services/gateway/dist/main.js"]

FROM runtime AS identity
CMD ["node", "services/identity/dist/main.js"]

FROM runtime AS catalog
CMD ["node", "services/catalog/dist/main.js"]

FROM runtime AS orders
CMD ["node", "services/orders/dist/main.js"]

FROM runtime AS wallet
CMD ["node", "services/wallet/dist/main.js"]

FROM runtime AS files
CMD ["node", "services/files/dist/main.js"]

FROM runtime AS notify
CMD ["node", "services/notify/dist/main.js"]

FROM runtime AS admin
CMD ["node", "services/admin/dist/main.js"]
