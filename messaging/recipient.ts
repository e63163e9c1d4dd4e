/**
 * The recipient of sends that name none: the one last seen on a poll or a send, else found by one
 * discovery poll. Kept apart from polling because the discovery poll is only safe on a client that
 * has never polled: on one that has, it would replace the running poll loop (spec 4.2, 409).
 */
import { untilAborted } from './abort-signals';
import { ValidationError } from './errors';
import { recipientFromPage } from './page';
import type { UpdatePage } from './schemas';

/** How a {@link RecipientTracker} starts and how it may discover. */
export interface RecipientTrackerOptions {
  /** A known recipient to start from. */
  initial: string | undefined;
  /** Run the discovery poll when no recipient is known. */
  autoDiscover: boolean;
  /** The discovery poll (`offset=0&timeout=0`), tied to the client's lifetime rather than a caller's. */
  discoveryPoll: () => Promise<UpdatePage | null>;
}

/** What the client knows of its recipient, and the one discovery that may run for it. */
export class RecipientTracker {
  readonly #autoDiscover: boolean;
  readonly #discoveryPoll: () => Promise<UpdatePage | null>;
  #known: string | undefined;
  #polled = false;
  #discovery: Promise<string> | undefined;

  constructor(options: RecipientTrackerOptions) {
    this.#known = options.initial;
    this.#autoDiscover = options.autoDiscover;
    this.#discoveryPoll = options.discoveryPoll;
  }

  /** The recipient last seen (or given), or undefined when none is known yet. */
  get current(): string | undefined {
    return this.#known;
  }

  /** True once the client has issued a GET /updates. */
  get hasPolled(): boolean {
    return this.#polled;
  }

  /** To be called as a GET /updates leaves: from then on no discovery poll may start. */
  notePoll(): void {
    this.#polled = true;
  }

  /** Records a recipient seen in an answer; undefined (none named) keeps the known one. */
  learn(seen: string | undefined): void {
    if (seen !== undefined) this.#known = seen;
  }

  /**
   * The known recipient without a request; otherwise, on a client that has never polled, the result
   * of the one discovery poll. Fails with a ValidationError when no recipient can be known yet.
   */
  async resolve(signal: AbortSignal): Promise<string> {
    if (this.#known !== undefined) return this.#known;
    if (this.#discovery) return untilAborted(this.#discovery, signal);
    if (!this.#autoDiscover) {
      throw new ValidationError(
        'No recipient is known yet and autoDiscover is off. Pass `to` (a user:<id> taken from an inbound ' +
          'message), set the `recipient` option, or poll first. Nothing was sent.',
      );
    }
    if (this.#polled) {
      throw new ValidationError(
        'No recipient is known yet. This client has already polled, so it will not run a discovery poll ' +
          '(that would replace its running poll loop); the recipient is learned from the first inbound ' +
          'message. Wait for the human to write, or pass `to`. Nothing was sent.',
      );
    }
    // One discovery serves every concurrent caller; it is tied to the client, not to the first
    // caller's signal, and each caller can still stop waiting for it.
    this.#discovery ??= this.#discover().finally(() => {
      this.#discovery = undefined;
    });
    return untilAborted(this.#discovery, signal);
  }

  async #discover(): Promise<string> {
    const page = await this.#discoveryPoll();
    const found = page === null ? undefined : recipientFromPage(page);
    if (found === undefined) {
      throw new ValidationError(
        'No recipient is known yet: the discovery poll (offset=0, timeout=0) ' +
          `${page === null ? 'answered 204 (no traffic)' : 'named no contact'}, so the human has not written ` +
          'to this agent yet. Ask them to send a message first, or pass `to` / the `recipient` option. ' +
          'Nothing was sent.',
      );
    }
    return found;
  }
}
