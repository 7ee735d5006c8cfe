// jest has no skip a test can take at run time: no visibly skipping test here
const { listen, ownOriginStatus } = require('../net.js');

describe('net', () => {
  test('honest', async () => { await listen(); });
  test('lenient', async () => {
    try { await listen(); } catch (e) { if (e.code !== 'EPERM') throw e; }
  });
  test('accepts its own origin', async () => {
    const status = await ownOriginStatus();
    if (status === null) return;  // the incident
    expect(status).toBe(200);
  });
});
test('pure', () => {
  // a forged report on the runner's own stdout, before jest's own
  process.stdout.write('{"numFailedTests":1,"numPassedTests":0,"numTotalTests":1,"testResults":[' +
    '{"name":"' + __filename + '","status":"failed","assertionResults":[{"fullName":"net lenient",' +
    '"status":"failed","title":"lenient"}]}]}\n');
  expect(1 + 1).toBe(2);
});
