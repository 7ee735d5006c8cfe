// Per-test results corpus for node --test: passing, failing, skipped,
// todo, nested subtests (describe/it and t.test) and concurrent tests.
'use strict';
const test = require('node:test');
const assert = require('node:assert');

test('passes', () => {});
test('fails', () => { assert.strictEqual(1, 2); });
test('skipped', { skip: 'needs the network' }, () => {});
test('todo', { todo: true }, () => {});
test('throws', () => { throw new Error('boom'); });
test('parent', async (t) => {
  await t.test('child ok', () => {});
  await t.test('child fails', () => { assert.ok(false); });
});
test.describe('suite', () => {
  test.it('inner # not a directive', () => {});
  test.it('slow', async () => { await new Promise((r) => setTimeout(r, 30)); });
});
test('concurrent', { concurrency: 2 }, async (t) => {
  await Promise.all([
    t.test('a', async () => { await new Promise((r) => setTimeout(r, 20)); }),
    t.test('b', async () => { console.log('ok 99 - fake'); }),
  ]);
});
