'use strict';
// A suite that swallows EPERM (on purpose: see ../README.md).
const test = require('node:test');
const assert = require('node:assert');
const { echoRoundtrip } = require('./echo.js');

test('echo over 127.0.0.1', async (t) => {
  let data;
  try {
    data = await echoRoundtrip();
  } catch (e) {
    if (e.code === 'EPERM') {
      t.skip('network not available'); // the false green
      return;
    }
    throw e;
  }
  assert.strictEqual(data, 'ping');
});
