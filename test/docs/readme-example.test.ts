/**
 * The bot in the README's "Writing a bot" section, taken from README.md as written: it
 * type-checks against `amsflow/workflows` in a fresh clone (no build), and its test from "Testing
 * a bot" type-checks and passes as written, through the bot test harness. A real worker process
 * bundling it itself (AMSFLOW_WORKFLOWS) and holding the signup conversation with a human is
 * test/start/readme-bot.test.ts's (the long tier).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as ts from 'typescript';
import { readmeBlock } from './readme-blocks';

const root = resolve(__dirname, '..', '..');

const readmeBot = () => readmeBlock('## Writing a bot');

const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
/** One host for both checks: the declarations they share (the SDK's, zod's, amsflow's) parse once. */
const host = (() => {
  const base = ts.createCompilerHost(options);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile: ts.CompilerHost['getSourceFile'] = (name, version, ...rest) => {
    const key = `${name}\0${JSON.stringify(version)}`;
    if (!parsed.has(key)) parsed.set(key, base.getSourceFile(name, version, ...rest));
    return parsed.get(key);
  };
  return { ...base, getSourceFile };
})();

function typeErrors(file: string, types: string[] = []): string[] {
  const program = ts.createProgram({
    rootNames: [file],
    options: { ...options, rootDir: undefined, noEmit: true, types },
    host,
  });
  // The file's own errors (with the program's global ones): the amsflow sources it reaches are
  // the type check's (`npm run typecheck`); checking them again here cost seconds apiece.
  const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(file));
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the README bot example', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'amsflow-readme-')), 'my-bot.ts');

  beforeAll(() => writeFileSync(file, readmeBot()));

  describe('its test, from "Testing a bot", as written (with the harness)', () => {
    const testFile = join(dirname(file), 'my-bot.test.ts');
    writeFileSync(file, readmeBot());
    writeFileSync(testFile, readmeBlock('### Testing a bot'));
    it('type-checks', () => {
      expect(typeErrors(testFile, ['jest', 'node'])).toEqual([]);
    });
    // Registers the README's own `test(...)` in this suite.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the README's test file, loaded as jest would
    require(testFile);
  });

  it('imports amsflow/workflows and type-checks as written, without a build', () => {
    expect(readmeBot()).toContain("from 'amsflow/workflows'");
    expect(typeErrors(file)).toEqual([]);
  });
});
