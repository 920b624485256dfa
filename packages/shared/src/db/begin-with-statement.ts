/** The parts of pg's connection a statement writes its protocol messages with. */
export interface ProtocolConnection {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: Record<string, never>): void;
  execute(message: Record<string, never>): void;
  stream: { cork?(): void; uncork?(): void; destroy(): void };
}

/**
 * pg's `Query` as its client drives it (the typings leave these out): the client asks it to write
 * its messages, reads its name and text at each ParseComplete, and hands it the server's answers.
 */
export interface PgStatement {
  readonly name?: string;
  readonly text?: string;
  submit(connection: ProtocolConnection): Error | null | undefined;
  handleCommandComplete(message: unknown, connection: unknown): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleEmptyQuery(connection: unknown): void;
  handlePortalSuspended(connection: unknown): void;
  handleError(error: unknown, connection: unknown): void;
  handleReadyForQuery(connection: unknown): void;
  handleCopyInResponse(connection: unknown): void;
  handleCopyData(message: unknown, connection: unknown): void;
}

/**
 * A transaction's first statement sent with its BEGIN in one write (ADR 0076), as pgjdbc does: the
 * BEGIN goes first in the same extended-protocol batch, without a Sync of its own, so the server runs
 * BEGIN and the statement in order and answers both with one ReadyForQuery, already inside the
 * transaction. pg's client sees one statement: the BEGIN's own answers (ParseComplete, BindComplete,
 * CommandComplete) are taken here, everything after goes to the statement as pg's `Query` expects.
 * Should the BEGIN fail, the server skips to the Sync and the statement reports the error.
 */
export class BeginWithStatement implements PgStatement {
  /** the BEGIN's CommandComplete has arrived: every later message is the statement's */
  private begun = false;

  constructor(private readonly statement: PgStatement) {}

  /** read by pg's client at each ParseComplete: the BEGIN is unnamed, the statement may be named */
  get name(): string | undefined {
    return this.begun ? this.statement.name : undefined;
  }

  get text(): string | undefined {
    return this.statement.text;
  }

  submit(connection: ProtocolConnection): Error | null {
    connection.stream.cork?.();
    try {
      connection.parse({ text: 'BEGIN', types: [] });
      connection.bind({});
      connection.execute({});
      // pg's Query refuses only a malformed statement (no text, a name reused for another text,
      // values not an array), which the pooled client never makes; with the BEGIN already written
      // and no Sync after it the connection could not be trusted, so it is closed as if lost
      const refused = this.statement.submit(connection);
      if (refused) connection.stream.destroy();
      return refused ?? null;
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    if (!this.begun) {
      this.begun = true;
      return;
    }
    this.statement.handleCommandComplete(message, connection);
  }

  handleRowDescription(message: unknown): void {
    this.statement.handleRowDescription(message);
  }

  handleDataRow(message: unknown): void {
    this.statement.handleDataRow(message);
  }

  handleEmptyQuery(connection: unknown): void {
    this.statement.handleEmptyQuery(connection);
  }

  handlePortalSuspended(connection: unknown): void {
    this.statement.handlePortalSuspended(connection);
  }

  handleError(error: unknown, connection: unknown): void {
    this.statement.handleError(error, connection);
  }

  handleReadyForQuery(connection: unknown): void {
    this.statement.handleReadyForQuery(connection);
  }

  handleCopyInResponse(connection: unknown): void {
    this.statement.handleCopyInResponse(connection);
  }

  handleCopyData(message: unknown, connection: unknown): void {
    this.statement.handleCopyData(message, connection);
  }
}
