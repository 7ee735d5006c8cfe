'use strict';
const net = require('node:net');

// Resolves to the echoed text; rejects with the first error (err.code).
function echoRoundtrip() {
  return new Promise((resolve, reject) => {
    const server = net.createServer((sock) => sock.pipe(sock));
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const client = net.connect(server.address().port, '127.0.0.1');
      client.once('error', (e) => { server.close(); reject(e); });
      client.once('data', (d) => {
        client.destroy();
        server.close();
        resolve(d.toString());
      });
      client.write('ping');
    });
  });
}

module.exports = { echoRoundtrip };
