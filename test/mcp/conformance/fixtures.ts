// Test-only registrations that @modelcontextprotocol/conformance 0.1.16 server scenarios look up
// by name. They are added through the host's mcpExtension hook by the conformance test only; the
// production server never has them.
import { completable, fromJsonSchema, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ServerExtension } from '../../../src-main/mcp/server.js';

export const conformanceFixtures: ServerExtension = (server) => {
  // completion-complete (and prompts-get-with-args)
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (v) => ['paris', 'park', 'party'].filter((x) => x.startsWith(v))),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );
  // json-schema-2020-12: the raw schema must reach tools/list verbatim ($schema, $defs, additionalProperties)
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      }),
    },
    async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );
  // resources-templates-read
  server.registerResource(
    'test_template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Conformance template', mimeType: 'application/json' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] }),
  );
  // server-sse-polling: closes the POST stream mid-call; the result must arrive on GET + Last-Event-ID
  server.registerTool('test_reconnection', { description: 'Closes the SSE stream mid-call (SEP-1699)' }, async (ctx) => {
    ctx.http?.closeSSE?.();
    await new Promise((r) => setTimeout(r, 200));
    return { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] };
  });
};
