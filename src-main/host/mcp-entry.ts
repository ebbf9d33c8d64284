// What the CLI may use of the MCP face: the tool names that token scopes refer to. The host is
// the composition root that wires the MCP face to the engine; the CLI reaches MCP only through
// it, so cli/ and mcp/ never import each other (checked by test/architecture.test.ts).
export { TOOL_NAMES } from '../mcp/tools/index.js';
