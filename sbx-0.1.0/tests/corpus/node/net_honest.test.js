'use strict';
// A suite that fails when the network is denied.
const test = require('node:test');
const assert = require('node:assert');
const { echoRoundtrip } = require('./echo.js');

test('echo over 127.0.0.1', async () => {
  assert.strictEqual(await echoRoundtrip(), 'ping');
});
