/**
 * Task tokens never reach a log line (a Temporal client holding one can complete or fail that
 * activity): the SDK's `taskToken` field, the core's forwarded `task_token` field, a token nested
 * in logged metadata (an activity's info, as bytes or base64), and a token quoted in a message or
 * an error's text (`TaskToken(...)`, the SDK's "already running activity: <token>"), in both
 * formats of amsflow's logger at debug level, and in the bot test harness's lines.
 */
import { randomUUID } from 'node:crypto';
import { REDACTED, redact, redactText } from '../../../core/redact';
import { QuietLogger } from '../../../testing/test-runtime';
import { AmsflowLogger } from '../../../worker/observability/logger';

/** A task token as the server makes one: a protobuf whose first field is the namespace's UUID. */
function taskToken(): Buffer {
  const field = (n: number, text: string) =>
    Buffer.concat([Buffer.from([(n << 3) | 2, text.length]), Buffer.from(text)]);
  return Buffer.concat([
    field(1, randomUUID()),
    field(2, 'agent:default'),
    field(3, randomUUID()),
    Buffer.from([0x20, 0x05]),
  ]);
}

const lines = (format: 'json' | 'pretty', log: (logger: AmsflowLogger) => void): string => {
  const out: string[] = [];
  log(
    new AmsflowLogger({
      format,
      level: 'debug',
      bodies: true,
      stream: { write: (l: string) => out.push(l) },
    }),
  );
  return out.join('');
};

describe('task tokens in log lines', () => {
  const bytes = taskToken();
  const b64 = bytes.toString('base64');
  const b64url = bytes.toString('base64url');

  it('have the shape the redaction looks for', () => {
    expect(b64).toMatch(/^Ci[QR]/);
    expect(redactText(`x ${b64} y`)).toBe(`x ${REDACTED} y`);
    expect(redactText(`x ${b64url} y`)).toBe(`x ${REDACTED} y`);
  });

  it.each(['json', 'pretty'] as const)('are dropped or redacted in every place, %s lines', (format) => {
    const written = lines(format, (logger) => {
      logger.warn('Activity failed', { taskToken: b64, activityType: 'pollUpdates' });
      logger.warn('Activity not found on completion', { sdkComponent: 'core', task_token: b64 });
      logger.debug('Activity started', { info: { taskToken: bytes, base64TaskToken: b64, activityId: '7' } });
      logger.debug(`Completing TaskToken(${b64}) now`, {});
      logger.error(`Got start event for an already running activity: ${b64}`, {
        error: new Error(`Got empty task for task variant with token: ${b64url}`),
      });
      logger.debug('core line', { fields: `task_token=${b64} run_id=r` });
    });
    expect(written).not.toContain(b64.slice(0, 30));
    expect(written).not.toContain(b64url.slice(0, 30));
    expect(written).toContain('pollUpdates');
    expect(written).toContain('activityId');
    expect(written).toContain(REDACTED);
  });

  it('are redacted in the bot test harness lines', () => {
    const out: string[] = [];
    new QuietLogger({ write: (l: string) => out.push(l) }).error(
      `Got start event for an already running activity: ${b64}`,
      {
        error: new Error(`TaskToken(${b64})`),
      },
    );
    expect(out.join('')).toContain('already running activity');
    expect(out.join('')).not.toContain(b64.slice(0, 30));
  });

  it('redacts nested token fields, keeping the rest', () => {
    expect(redact({ a: { taskToken: 'x', task_token: 'y', base64TaskToken: 'z', other: 1 } })).toEqual({
      a: { taskToken: REDACTED, task_token: REDACTED, base64TaskToken: REDACTED, other: 1 },
    });
    // Ordinary text that merely looks base64 is left alone.
    expect(redactText('CiQ short and Cat-and-dog-words')).toBe('CiQ short and Cat-and-dog-words');
  });
});
