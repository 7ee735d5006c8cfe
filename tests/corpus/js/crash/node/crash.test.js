// A test whose process exits when its bind is denied (as a fixture that
// calls process.exit on a listen error does), before a lenient test: the
// tests after it have no result under restrictive and are re-run (issue 34).
const test = require('node:test');
const assert = require('node:assert');
const net = require('node:net');
const { listen } = require('../../net.js');

test('pure first', () => { assert.strictEqual(2 * 2, 4); });
test('dies when bind fails', (t, done) => {
  const s = net.createServer();
  s.on('error', () => process.exit(9));
  s.listen(0, '127.0.0.1', () => s.close(done));
});
test('lenient', async () => {
  try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
});
test('honest', async () => { await listen(); });
test('pure last', () => { assert.ok(true); });
