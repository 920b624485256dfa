#!/usr/bin/env node
// Churns through the kernel's ephemeral ports, as other programs on a CI machine do: opens short
// TCP connections to a local listener, many at a time, for CHURN_SECONDS (default 600), then stops.
// Run it beside the end-to-end suites to check that no test races another socket for a port.
import { createServer, connect } from 'node:net';

const seconds = Number(process.env.CHURN_SECONDS ?? 600);
const parallel = Number(process.env.CHURN_PARALLEL ?? 64);
const server = createServer((socket) => socket.end());
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const until = Date.now() + seconds * 1000;
let opened = 0;

async function loop() {
  while (Date.now() < until) {
    await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => opened++);
      socket.on('close', resolve);
      socket.on('error', resolve);
      socket.resume();
    });
  }
}

const report = setInterval(() => process.stdout.write(`[churn] ${opened} connections so far\n`), 10_000);
await Promise.all(Array.from({ length: parallel }, loop));
clearInterval(report);
server.close();
process.stdout.write(`[churn] done: ${opened} short connections in ${seconds} s\n`);
