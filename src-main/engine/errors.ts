// The one error type of the engine. Faces map `code` to their own vocabulary:
// MCP isError results, HTTP statuses, CLI exit codes.
export type TroveErrorCode =
  | 'INVALID_INPUT' // the caller asked for something malformed (bad name, bad query, bad locator)
  | 'NOT_FOUND' // a collection, document or path that does not exist in the index
  | 'CONFLICT' // e.g. a collection name already taken
  | 'IO' // the file system refused (missing root, unreadable folder)
  | 'UNAVAILABLE' // a feature that needs something absent (e.g. no embedding model)
  | 'INTERNAL';

export class TroveError extends Error {
  constructor(
    readonly code: TroveErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'TroveError';
  }
}

export function invalidInput(message: string, details?: Record<string, unknown>): TroveError {
  return new TroveError('INVALID_INPUT', message, details);
}

export function notFound(message: string, details?: Record<string, unknown>): TroveError {
  return new TroveError('NOT_FOUND', message, details);
}

export function isTroveError(err: unknown): err is TroveError {
  return err instanceof TroveError;
}
