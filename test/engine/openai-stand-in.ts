/**
 * A local stand-in for the OpenAI Chat Completions endpoint (no provider is reachable from the
 * test machines), on port 0: the real `@ai-sdk/openai` provider talks to it over HTTP through
 * `OPENAI_BASE_URL`. It records each request (its Authorization header and JSON body) and answers
 * from a queue of replies: an HTTP error (with Retry-After) or a completion with its usage.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StandInReply =
  | { status: number; retryAfter?: number }
  | { text: string; usage: { prompt_tokens: number; completion_tokens: number } };

export interface StandInRequest {
  path: string;
  authorization?: string;
  body: {
    model?: string;
    messages?: { role: string; content: unknown }[];
    tools?: { function: { name: string } }[];
  };
}

export class OpenAiStandIn {
  readonly requests: StandInRequest[] = [];
  private server?: Server;

  constructor(private readonly replies: StandInReply[]) {}

  /** Starts it; resolves to its base URL (`OPENAI_BASE_URL`). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        this.requests.push({
          path: req.url ?? '',
          authorization: req.headers.authorization,
          body: JSON.parse(raw || '{}'),
        });
        const reply = this.replies.shift() ?? { status: 500 };
        if ('status' in reply) {
          res.writeHead(reply.status, {
            'content-type': 'application/json',
            ...(reply.retryAfter === undefined ? {} : { 'retry-after': String(reply.retryAfter) }),
          });
          res.end(
            JSON.stringify({
              error: { message: 'stand-in error', type: 'stand_in', code: `status_${reply.status}` },
            }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: 'gpt-stand-in',
            choices: [
              { index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' },
            ],
            usage: {
              ...reply.usage,
              total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens,
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
