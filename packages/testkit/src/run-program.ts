import { execFile } from 'node:child_process';

/**
 * Runs a workspace's command-line program from its TypeScript sources (through tsx), as its npm
 * script does, with only `env` and PATH: its exit code and what it printed.
 */
export function runProgram(workspaceDir: string, script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), script],
      { cwd: workspaceDir, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}
