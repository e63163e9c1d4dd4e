// Ask the human before deploying: a reminder after 15 minutes, expired after an hour.
import type { Client } from '@temporalio/client';
import { requestApproval } from 'amsflow';

export async function approvedToDeploy(
  client: Client,
  version: string,
  agent = { agentKey: 'default', taskQueue: 'amsflow' },
) {
  const approval = await requestApproval(client, {
    ...agent,
    id: `deploy-${version}`, // asking twice for one version is one request
    question: `Deploy ${version} to production?`,
    timeout: '1h',
    remindAfter: '15m',
  });
  const { decision } = await approval.result(); // 'approved' | 'rejected' | 'expired' | 'cancelled'
  return decision === 'approved';
}
