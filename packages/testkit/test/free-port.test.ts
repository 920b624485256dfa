import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, PORT_RESERVATIONS } from '../src/processes';

const reservation = (port: number) => path.join(PORT_RESERVATIONS, String(port));
/** every port freePort could choose, but those given */
const allBut = (...free: number[]) => new Set(Array.from({ length: 65_536 - 20_000 }, (_, i) => 20_000 + i).filter((port) => !free.includes(port)));

describe('freePort', () => {
  it('never hands out one port twice in a process, though nothing listens on it yet', async () => {
    const ports = [];
    for (let i = 0; i < 50; i += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(50);
  });

  it('never hands out a port another live test process reserved, and takes over one whose process ended', async () => {
    const [held, open] = [await freePort(), await freePort()];
    // another live process (the one that started this test) holds the first; nobody holds the second
    writeFileSync(reservation(held), String(process.ppid));
    rmSync(reservation(open));
    expect(await freePort(allBut(held, open))).toBe(open);

    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(reservation(held), String(ended));
    expect(await freePort(allBut(held))).toBe(held);
  });
});
