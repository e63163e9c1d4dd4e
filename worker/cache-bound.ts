/**
 * The workflow cache's bound, following the heap (sdk-typescript#2227: a cache sized by count
 * alone can grow past the memory a worker has, and a burst of new workflows then crashes it).
 * Each cached workflow holds about 1 MB (its context, its state, the payloads it saw); the cache
 * may take `share` of the V8 heap's limit (`--max-old-space-size`, else Node's default), the rest
 * being the activities' (thousands of long polls, their sockets and clients). An evicted workflow
 * costs nothing until its next task, which replays it from history. Pure.
 */

/** Memory a cached workflow holds, as the SDK's docs and our fleet bench measure it. */
export const CACHED_WORKFLOW_BYTES = 1024 * 1024;
/** The share of the heap limit the cache may take. */
export const CACHE_HEAP_SHARE = 0.4;

/** Cached workflows at most for a heap limit of `heapLimitBytes` (at least 10, like the SDK's). */
export function cacheBound(heapLimitBytes: number, share = CACHE_HEAP_SHARE): number {
  return Math.max(10, Math.floor((heapLimitBytes * share) / CACHED_WORKFLOW_BYTES));
}
