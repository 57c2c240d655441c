# The API image. Node 24 from the node@24 devDependency is not needed here:
# the base image is Node 24 itself, which runs the TypeScript sources natively.
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY scripts ./scripts
# devDependencies are kept: the ETL and migrations run from the same image.
RUN npm ci --no-audit --no-fund
COPY . .
EXPOSE 4000
CMD ["node", "src/main.ts"]
