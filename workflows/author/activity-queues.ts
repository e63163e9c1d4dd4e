/**
 * Where this workflow's activities run: the prefix of the agent's activity task queues
 * (`<prefix>-media`, ...), which a handler gets in its input. Held here, in the author API, so
 * that the use-case rooms (media) read it without the author API importing them. Module state is
 * per workflow (each workflow runs in its own isolate context).
 */
let queuePrefix: string | undefined;

/** Sets the prefix; undefined means this workflow's own task queue. */
export function setActivityQueuePrefix(prefix: string | undefined): void {
  queuePrefix = prefix;
}

/** The prefix set for this workflow, if any. */
export function activityQueuePrefix(): string | undefined {
  return queuePrefix;
}
