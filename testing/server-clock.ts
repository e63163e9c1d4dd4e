/**
 * The simulator's clock in a time-skipping test: the Temporal test server's time. Read before
 * each simulator request (`sync`), and between reads it runs with real time, as the test
 * server's own clock does while it is not skipping. So the simulator's rate windows, receipt
 * delays and timestamps agree with the agent's pacing in workflow time.
 */
export class ServerClock {
  private base: number;
  private readAt: number;
  private last = 0;

  constructor(
    private readonly read: () => Promise<number>,
    start: number,
  ) {
    this.base = start;
    this.readAt = Date.now();
  }

  /** Builds a clock from the server's current time. */
  static async from(read: () => Promise<number>): Promise<ServerClock> {
    return new ServerClock(read, await read());
  }

  /** The server's time in epoch ms, never going back. */
  now = (): number => {
    this.last = Math.max(this.last, this.base + (Date.now() - this.readAt));
    return this.last;
  };

  /** Reads the server's time again (it jumps when the server skips). */
  sync = async (): Promise<void> => {
    const value = await this.read();
    this.base = value;
    this.readAt = Date.now();
  };
}
