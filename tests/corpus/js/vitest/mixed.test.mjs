import { describe, test, expect } from 'vitest';
import { createRequire } from 'node:module';
const { listen, ownOriginStatus } = createRequire(import.meta.url)('../net.js');

describe('net', () => {
  test('honest', async () => { await listen(); });
  test('lenient', async () => {
    try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
  });
  test('skips', async (ctx) => {
    try { await listen(); } catch (e) { ctx.skip(); }
  });
  test('accepts its own origin', async () => {
    const status = await ownOriginStatus();
    if (status === null) return;
    expect(status).toBe(200);
  });
});
test('pure', () => { expect(1 + 1).toBe(2); });
