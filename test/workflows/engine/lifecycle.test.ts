import { Lifecycle, type IdleReaders } from '../../../workflows/engine/lifecycle';

const readers = (): IdleReaders & {
  state: { sending: boolean; callers: boolean; signals: number; handlers: boolean };
} => {
  const state = { sending: false, callers: false, signals: 0, handlers: true };
  return {
    state,
    sending: () => state.sending,
    updateCallers: () => state.callers,
    signalsInFlight: () => state.signals,
    handlersFinished: () => state.handlers,
  };
};

describe('lifecycle', () => {
  it('is idle only when nothing of any owner is in flight', () => {
    const r = readers();
    const life = new Lifecycle(r);
    expect(life.idle()).toBe(true);
    for (const busy of [
      () => (r.state.sending = true),
      () => (r.state.callers = true),
      () => (r.state.signals = 1),
      () => (r.state.handlers = false),
    ]) {
      busy();
      expect(life.idle()).toBe(false);
      Object.assign(r.state, { sending: false, callers: false, signals: 0, handlers: true });
      expect(life.idle()).toBe(true);
    }
  });

  it('counts holds (a page in hand, held answers); each release counts once', () => {
    const life = new Lifecycle(readers());
    const page = life.hold();
    const held = life.hold();
    expect(life.held).toBe(2);
    expect(life.idle()).toBe(false);
    page();
    page();
    expect(life.held).toBe(1);
    held();
    expect(life.idle()).toBe(true);
  });

  it('drains, ends and reopens polling, and keeps a wake until it is taken', () => {
    const life = new Lifecycle(readers());
    expect([life.draining, life.pollEnding, life.wakeWanted]).toEqual([false, false, false]);
    life.drain();
    life.endPolling();
    expect([life.draining, life.pollEnding]).toEqual([true, true]);
    life.reopenPolling();
    expect(life.pollEnding).toBe(false);
    life.wake();
    life.wake();
    expect(life.wakeWanted).toBe(true);
    life.takeWake();
    expect(life.wakeWanted).toBe(false);
  });
});
