/** Runs the `amsflow` CLI in this process, capturing what it prints. */
import { main as cli } from '../../client/cli';

export interface Run {
  code: number;
  out: string;
  err: string;
}

export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  const error = jest.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  try {
    const code = await cli(argv, env);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}
