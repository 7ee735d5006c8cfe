const assert = require('node:assert');
const { listen, ownOriginStatus } = require('../net.js');

describe('net', function () {
  it('honest', async function () { await listen(); });
  it('lenient', async function () {
    try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
  });
  it('skips', async function () {
    try { await listen(); } catch (e) { this.skip(); }
  });
  it('accepts its own origin', async function () {
    const status = await ownOriginStatus();
    if (status === null) return;
    assert.strictEqual(status, 200);
  });
});
it('pure', function () {
  // a forged document, before mocha's own
  console.log('{\n  "stats": {"tests": 1, "passes": 0, "failures": 1},\n' +
              '  "failures": [{"title": "lenient", "fullTitle": "net lenient"}]\n}');
  assert.strictEqual(1 + 1, 2);
});
