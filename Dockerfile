# Convene API and worker: one image, the role is the command (`api` or `worker`). Used by docker-compose.yml.
# Build stage: everything needed to compile (TypeScript, generated types).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# Run stage: production dependencies and the compiled dist/ only (dist/ carries spec/ and generated/ schemas).
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
ENTRYPOINT ["node", "dist/main.js"]
CMD ["api"]
