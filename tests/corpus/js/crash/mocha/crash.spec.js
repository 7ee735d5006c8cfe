// A test whose process exits when its bind is denied (as a fixture that
// calls process.exit on a listen error does), before a lenient test: the
// tests after it have no result under restrictive and are re-run (issue 34).
const assert = require('node:assert');
const net = require('node:net');
const { listen } = require('../../net.js');

describe('net', function () {
  it('pure first', function () { assert.strictEqual(2 * 2, 4); });
  it('dies when bind fails', function (done) {
    const s = net.createServer();
    s.on('error', () => process.exit(9));
    s.listen(0, '127.0.0.1', () => s.close(done));
  });
  it('lenient', async function () {
    try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
  });
  it('honest', async function () { await listen(); });
  it('pure last', function () { assert.ok(true); });
});
