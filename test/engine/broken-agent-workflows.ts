/** An agent workflow with a bug (a TypeError in its first workflow task): its task fails on every attempt. */
export { onMessage } from './workflows';

export async function agentWorkflow(input: { agentKey: string }): Promise<void> {
  const broken = (input as unknown as { missing: { field: string } }).missing;
  await Promise.resolve(broken.field);
}
