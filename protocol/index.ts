/**
 * The names shared by workflows, activities, worker and client: failure types, task queues,
 * workflow ids, signals, updates and queries. Side-effect free, so workflow code may import it.
 */
export * from './failures';
export * from './ids';
export * from './messages';
export * from './queues';
