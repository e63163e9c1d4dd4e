/**
 * The simulator's state file (`stateFile`), which lets `npm start` resume its conversation:
 * a round trip through a restart, receipts still due, an unclean end, corrupt files, and writes
 * that are atomic.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SimulatorStateError, type RunningSimulator } from '../../simulator';
import { mediaDirOf, readStateFile, SEQ_GAP_AFTER_CRASH, STATE_FORMAT } from '../../simulator/state-file';
import { atomicWrite } from '../../simulator/state-store';
import { AgentHttp, eventually, pageOf } from '../simulator/support';

const AGENT = { id: 'demo', token: 'tok-1', creator: 'user:1001', creatorName: 'Ada' };

let dir: string;
let file: string;
const running: RunningSimulator[] = [];

async function start(
  options: { deliveredAfterMs?: number; token?: string; stateFile?: string } = {},
): Promise<{ sim: RunningSimulator; agent: AgentHttp }> {
  const sim = await startSimulator({
    port: 0,
    agents: [{ ...AGENT, token: options.token ?? AGENT.token }],
    receipts: { deliveredAfterMs: options.deliveredAfterMs ?? 20 },
    stateFile: options.stateFile ?? file,
    stateWriteDelayMs: 20,
  });
  running.push(sim);
  return { sim, agent: new AgentHttp(sim.url, sim.token) };
}

const onDisk = () =>
  JSON.parse(readFileSync(file, 'utf8')) as { clean: boolean; agents: Record<string, unknown> };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-state-'));
  file = join(dir, 'demo', 'simulator.json');
});

afterEach(async () => {
  for (const sim of running.splice(0)) await sim.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('simulator state file', () => {
  it('is off by default: nothing is written, nothing is reported', async () => {
    const sim = await startSimulator({ port: 0 });
    running.push(sim);
    await sim.control.humanText('hello');
    await sim.close();
    expect(sim.state).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('resumes the conversation, the buffer and its offsets, read state, receipts and media', async () => {
    const first = await start();
    expect(first.sim.state).toMatchObject({ file, resumed: false, messages: 0 });
    const hello = await first.sim.control.humanText('hello');
    const page = pageOf(await first.agent.poll({ offset: 0, timeout: 0 }));
    expect(page.messages.map((m: { id: string }) => m.id)).toEqual([hello.id]);
    expect((await first.agent.markRead(hello.id)).status).toBe(200);
    const replyId = await first.agent.sendTextId('hi Ada');
    // The human's picture, and one the agent uploaded.
    const pictureBytes = Buffer.from('not-really-a-png-but-bytes');
    const { id: pictureMedia } = await first.sim.control.uploadHumanMedia(pictureBytes, 'image/png', 'p.png');
    const picture = await first.sim.control.human({
      type: 'image',
      image: { id: pictureMedia, caption: 'look' },
      context: { id: replyId },
    });
    const agentMedia = await first.agent.uploadId(Buffer.from('agent-doc'), 'application/pdf', 'a.pdf');
    await first.sim.control.read(replyId);
    await eventually('the delivered and read receipts', async () => {
      const t = await first.sim.control.transcript();
      return t.sent[0].receipts.length === 3 ? t : undefined;
    });
    const conversation = await first.sim.control.conversation();
    const transcript = await first.sim.control.transcript();
    await first.sim.close();
    expect(onDisk().clean).toBe(true);

    // Started again, on a new token (npm start makes one each time): all of it is there.
    const second = await start({ token: 'tok-2' });
    expect(second.sim.state).toMatchObject({ file, resumed: true, messages: 3, unclean: false });
    expect(await second.sim.control.conversation()).toEqual(conversation);
    const again = await second.sim.control.transcript();
    expect(again.sent).toEqual(transcript.sent);
    expect(again.inbound).toEqual(transcript.inbound);
    // The buffer, with its sequence numbers: the read message is gone, the receipts are not.
    const replay = pageOf(await second.agent.poll({ offset: 0, timeout: 0 }));
    expect(replay.messages.map((m: { id: string }) => m.id)).toEqual([picture.id]);
    expect(replay.statuses.map((s: { status: string }) => s.status)).toEqual(['sent', 'delivered', 'read']);
    const past = pageOf(await second.agent.poll({ offset: picture.offset + 1, timeout: 0 }));
    expect(past.messages).toEqual([]);
    // Numbering goes on where it stopped; restored ids can still be quoted.
    const next = await second.sim.control.humanText('and more', { quote: replyId });
    expect(next.offset).toBe(replay.nextOffset);
    const quoting = pageOf(await second.agent.poll({ offset: replay.nextOffset, timeout: 0 }));
    expect(quoting.messages[0].context).toEqual({ id: replyId, from: 'agent:demo' });
    // Media bytes, for the web chat and for the agent.
    const shown = await fetch(second.sim.control.mediaUrl(pictureMedia));
    expect(Buffer.from(await shown.arrayBuffer())).toEqual(pictureBytes);
    const meta = await second.agent.request('GET', `/media/${agentMedia}`);
    expect(meta.json).toMatchObject({ mime_type: 'application/pdf', file_size: 9 });
    const bytes = await second.agent.request('GET', `/media/${agentMedia}/download`);
    expect(bytes.text).toBe('agent-doc');
  });

  it('arms again a receipt that was still due at the stop', async () => {
    const first = await start({ deliveredAfterMs: 1500 });
    await first.sim.control.humanText('hello');
    const id = await first.agent.sendTextId('soon delivered');
    await first.sim.close();
    const { sim } = await start({ deliveredAfterMs: 1500 });
    const [restored] = (await sim.control.transcript()).sent;
    expect(restored.id).toBe(id);
    expect(restored.receipts).toEqual(['sent']);
    const receipts = await eventually(
      'the delivered receipt after the restart',
      async () => {
        const [sent] = (await sim.control.transcript()).sent;
        return sent.receipts.length > 1 ? sent.receipts : undefined;
      },
      5000,
    );
    expect(receipts).toEqual(['sent', 'delivered']);
  });

  it('writes changes soon after they happen; after an unclean end, numbering skips ahead', async () => {
    const { sim } = await start();
    const hello = await sim.control.humanText('hello');
    const written = await eventually('the change on disk', () =>
      existsSync(file) && readFileSync(file, 'utf8').includes(hello.id) ? onDisk() : undefined,
    );
    expect(written.clean).toBe(false);
    // As if the process had been killed now: a second simulator reads what is on disk.
    const after = await start({ token: 'tok-2', stateFile: file });
    expect(after.sim.state).toMatchObject({ resumed: true, unclean: true, messages: 1 });
    const next = await after.sim.control.humanText('after the crash');
    // An agent may have polled past messages the crash lost; new ones are numbered above them.
    expect(next.offset).toBe(hello.offset + 1 + SEQ_GAP_AFTER_CRASH);
  });

  it('keeps the state of agents it does not serve this time', async () => {
    const { sim } = await start();
    await sim.control.humanText('for demo');
    await sim.close();
    const other = await startSimulator({
      port: 0,
      agents: [{ id: 'other', token: 't', creator: 'user:1002' }],
      stateFile: file,
    });
    running.push(other);
    expect(other.state).toMatchObject({ resumed: true, messages: 0 });
    await other.control.humanText('for other');
    await other.close();
    const back = await start();
    expect((await back.sim.control.conversation()).entries.map((e) => e.payload)).toEqual([
      { body: 'for demo' },
    ]);
    expect(Object.keys(onDisk().agents).sort()).toEqual(['demo', 'other']);
  });

  describe('a file that cannot be used stops the start, names the file and says how to reset', () => {
    const refused = async (content: string, problem: RegExp) => {
      writeFileSync(file, content);
      const attempt = start();
      await expect(attempt).rejects.toThrow(SimulatorStateError);
      await expect(attempt).rejects.toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      await expect(attempt).rejects.toThrow(problem);
      await expect(attempt).rejects.toThrow(/To start afresh, delete /);
      // Never overwritten: the history is still there to repair.
      expect(readFileSync(file, 'utf8')).toBe(content);
    };

    let good: Record<string, unknown> & { agents: Record<string, Record<string, unknown[]>> };
    beforeEach(async () => {
      const { sim } = await start();
      await sim.control.humanText('hello');
      await sim.close();
      good = JSON.parse(readFileSync(file, 'utf8')) as typeof good;
    });

    it('not JSON (a torn or edited file)', async () => {
      await refused(JSON.stringify(good).slice(0, 50), /is not valid JSON/);
    });

    it('not a state file, or a version this simulator does not know', async () => {
      await refused('[1, 2, 3]', /is not a simulator state file/);
      await refused(JSON.stringify({ ...good, version: 99 }), /version/);
    });

    it('a record of the wrong shape, or sequence numbers out of order', async () => {
      const entries = good.agents.demo.entries as { seq: unknown }[];
      const wrongShape = structuredClone(good);
      (wrongShape.agents.demo.entries[0] as { seq: unknown }).seq = 'one';
      await refused(
        JSON.stringify(wrongShape),
        /agent "demo" is not valid \(entries\.0\.seq: Expected number/,
      );
      const outOfOrder = structuredClone(good);
      outOfOrder.agents.demo.entries = [...entries, ...entries];
      await refused(JSON.stringify(outOfOrder), /sequence numbers must increase/);
    });

    it('media whose bytes are missing', async () => {
      const { sim, agent } = await start();
      await agent.uploadId(Buffer.from('bytes'), 'image/png');
      await sim.close();
      rmSync(mediaDirOf(file), { recursive: true });
      await expect(start()).rejects.toThrow(/the bytes of media \d+ cannot be read from .*simulator-media/);
    });
  });

  describe('atomic writes', () => {
    it('a reader sees the old content or the new, never a part', async () => {
      const target = join(dir, 'atomic.json');
      const versions = Array.from({ length: 40 }, (_, i) =>
        JSON.stringify({ i, pad: 'x'.repeat(200_000 + i) }),
      );
      await atomicWrite(target, versions[0]);
      let reads = 0;
      let writing = true;
      const reader = (async () => {
        while (writing) {
          const text = readFileSync(target, 'utf8');
          expect(versions).toContain(text);
          reads++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      for (const version of versions.slice(1)) await atomicWrite(target, version);
      writing = false;
      await reader;
      expect(reads).toBeGreaterThan(10);
      expect(readFileSync(target, 'utf8')).toBe(versions[versions.length - 1]);
      // No temp file is left behind.
      expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    });

    it('a write cut short leaves a temp file that the next start ignores and removes', async () => {
      const { sim } = await start();
      await sim.control.humanText('kept');
      await sim.close();
      const torn = join(dir, 'demo', '.simulator.json.abcdef.tmp');
      writeFileSync(torn, '{"format":"amsflow-simu');
      const again = await start();
      expect(again.sim.state).toMatchObject({ resumed: true, messages: 1 });
      expect(existsSync(torn)).toBe(false);
      expect(readStateFile(file)?.format).toBe(STATE_FORMAT);
    });
  });
});
