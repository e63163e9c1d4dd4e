/** `amsflow codec-server`: decrypts payloads for the Temporal UI; contacts no Temporal server. */
import { DEFAULT_CODEC_SERVER_PORT, DEFAULT_UI_ORIGINS } from '../../codec';
import { allowedHostProblem } from '../../core/local-request';
import { CODEC_TOKEN_VARIABLE, originProblem, portProblem, runCodecServer } from '../codec-server';
import { command } from './spec';

const string = (value: string, description: string) => ({ type: 'string', value, description }) as const;

export const codecServerCommand = command({
  name: 'codec-server',
  summary: 'decrypt payloads for the Temporal UI (until Ctrl-C)',
  description: [
    "Serves POST /decode (and /<namespace>/decode) with the keys of AMSFLOW_ENCRYPTION_KEYS (the workers' keys),",
    "for the Temporal UI's codec endpoint; contacts no Temporal server. It answers only requests naming it in",
    'their Host and sent by no page but an allowed --origin. Beyond loopback it needs a credential:',
    `--token-file or ${CODEC_TOKEN_VARIABLE} (a bearer token), or --oidc-issuer and --oidc-audience (the UI's`,
    'access tokens, TEMPORAL_CODEC_PASS_ACCESS_TOKEN=true). /encode is off unless --allow-encode (with a',
    'credential). Exit 2 without keys or with a setup that would serve anyone, 1 when it cannot listen.',
  ].join('\n'),
  options: {
    port: {
      type: 'string',
      value: String(DEFAULT_CODEC_SERVER_PORT),
      description: 'the port to listen on (0: any free port)',
      default: String(DEFAULT_CODEC_SERVER_PORT),
      check: portProblem,
    },
    host: {
      type: 'string',
      value: '127.0.0.1',
      description: 'the address to listen on (beyond loopback only with a credential)',
      default: '127.0.0.1',
    },
    origin: {
      ...string('<Temporal UI origin>', 'a browser origin allowed to call it (repeatable)'),
      multiple: true,
      default: DEFAULT_UI_ORIGINS,
      check: originProblem,
    },
    'allowed-host': {
      ...string(
        '<name>',
        'a host name it is reached by, e.g. a proxy\'s (repeatable; ".example" for subdomains)',
      ),
      multiple: true,
      check: (name: string) => {
        const problem = allowedHostProblem(name);
        return problem && `codec-server: --allowed-host ${problem}`;
      },
    },
    namespace: {
      ...string('<namespace>', 'decode for this namespace only (repeatable; default any)'),
      multiple: true,
    },
    'token-file': string(
      '<path>',
      `a file holding the bearer token callers must send (or ${CODEC_TOKEN_VARIABLE})`,
    ),
    'oidc-issuer': {
      ...string('<url>', "accept the Temporal UI's OIDC access tokens of this issuer"),
      env: 'AMSFLOW_CODEC_OIDC_ISSUER',
    },
    'oidc-audience': {
      ...string('<audience>', 'the audience those tokens must name'),
      env: 'AMSFLOW_CODEC_OIDC_AUDIENCE',
    },
    'oidc-jwks-uri': string('<url>', "the issuer's key set (default: from its discovery document)"),
    'oidc-permissions-claim': string(
      '<claim>',
      'a claim of Temporal permissions ("default:read") that must grant the namespace asked for',
    ),
    'allow-encode': { type: 'boolean', description: 'serve /encode too (needs a credential)' },
    strict: {
      type: 'boolean',
      description: 'refuse unencrypted and unbound payloads (or AMSFLOW_ENCRYPTION_STRICT=1)',
    },
  },
  run: ({ values, env }) => runCodecServer(values, env),
});
