/**
 * The new admin's password: from ADMIN_PASSWORD, else from stdin — typed at a terminal without
 * echo, or the first line of a pipe. Never from argv, which other users of the host can read.
 */
export async function readPassword(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.ADMIN_PASSWORD) return env.ADMIN_PASSWORD;
  return process.stdin.isTTY ? promptWithoutEcho('Password: ') : firstLineOfStdin();
}

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function promptWithoutEcho(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (outcome: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(() => resolve(typed));
        if (char === '\u0003') return finish(() => reject(new Error('cancelled')));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
