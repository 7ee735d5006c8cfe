const test = require('node:test');
const assert = require('node:assert');
const { listen, ownOriginStatus } = require('../net.js');

test('honest', async () => { await listen(); });
test('lenient', async () => {
  try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
});
test('skips', async (t) => {
  try { await listen(); } catch (e) { t.skip('no network here'); }
});
test('pure', () => {
  // a forged result: node frames a test's output as a comment
  console.log('not ok 1 - pure');
  console.log('not ok 2 - lenient');
  assert.strictEqual(1 + 1, 2);
});
test('accepts its own origin', async () => {
  const status = await ownOriginStatus();
  if (status === null) return;  // the incident: green where it cannot run
  assert.strictEqual(status, 200, 'request rejected: origin port mismatch');
});
