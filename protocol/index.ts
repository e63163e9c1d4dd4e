/**
 * The contracts shared by workflows, activities, worker and client: failure types, task queues,
 * workflow ids, signals, updates and queries and the payloads they carry. Side-effect free, so
 * workflow code may import it; it imports nothing of the engine or of workflows/.
 */
export * from './agent';
export * from './approvals';
export * from './conversations';
export * from './failures';
export * from './messages';
