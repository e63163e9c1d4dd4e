/** `amsflow codec-server`: decrypts payloads for the Temporal UI; contacts no Temporal server. */
import { DEFAULT_CODEC_SERVER_PORT, DEFAULT_UI_ORIGINS } from '../../codec';
import { originProblem, portProblem, runCodecServer } from '../codec-server';
import { command } from './spec';

export const codecServerCommand = command({
  name: 'codec-server',
  summary: 'decrypt payloads for the Temporal UI (until Ctrl-C)',
  description: [
    "Serves POST /encode and /decode with the keys of AMSFLOW_ENCRYPTION_KEYS (the workers' keys),",
    "for the Temporal UI's codec endpoint; contacts no Temporal server. Exit 2 without keys, 1 when",
    'it cannot listen.',
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
      description: 'the address to listen on',
      default: '127.0.0.1',
    },
    origin: {
      type: 'string',
      value: '<Temporal UI origin>',
      description: 'a browser origin allowed to call it (repeatable)',
      multiple: true,
      default: DEFAULT_UI_ORIGINS,
      check: originProblem,
    },
  },
  run: ({ values, env }) => runCodecServer(values, env),
});
