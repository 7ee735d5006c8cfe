'use strict';
// A suite that touches no network.
const test = require('node:test');
const assert = require('node:assert');

const gcd = (a, b) => (b ? gcd(b, a % b) : a);
test('gcd', () => {
  assert.strictEqual(gcd(84, 36), 12);
});
